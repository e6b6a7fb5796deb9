import { createSecureContext } from 'node:tls';
import type { CertAndKey } from '@agent-bridge/pki';
import {
  BridgeServiceClient,
  type SessionEvent,
  type StreamEventsRequest,
} from '@agent-bridge/proto';
import {
  type ClientReadableStream,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from '@grpc/grpc-js';

export { status };

export interface ClientOptions {
  port: number;
  caPem: string;
  client: CertAndKey;
  /** TLS version bounds for negative tests. */
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
  minVersion?: 'TLSv1.2' | 'TLSv1.3';
}

/** A raw grpc-js client built from the contract, over mutual TLS. */
export function connect(o: ClientOptions): BridgeServiceClient {
  const ctx = createSecureContext({
    minVersion: o.minVersion ?? 'TLSv1.3',
    ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}),
    ca: o.caPem,
    cert: o.client.certPem,
    key: o.client.keyPem,
  });
  return new BridgeServiceClient(`127.0.0.1:${o.port}`, credentials.createFromSecureContext(ctx), {
    'grpc.ssl_target_name_override': 'localhost',
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
}

export function bearer(token: string | undefined): Metadata {
  const md = new Metadata();
  if (token !== undefined) md.set('authorization', `Bearer ${token}`);
  return md;
}

type UnaryMethod<Req, Res> = (
  req: Req,
  md: Metadata,
  opts: { deadline: Date },
  cb: (err: ServiceError | null, res: Res) => void,
) => unknown;

/** Calls a unary method; resolves with the response or rejects with the ServiceError. */
export function call<Req, Res>(
  client: BridgeServiceClient,
  method: (c: BridgeServiceClient) => UnaryMethod<Req, Res>,
  req: Req,
  md: Metadata,
  timeoutMs = 20_000,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(client).call(
      client,
      req,
      md,
      { deadline: new Date(Date.now() + timeoutMs) },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/** The gRPC code of a rejected call (or "ok"). */
export async function codeOf(p: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return (err as ServiceError).code;
  }
}

/** Reads a StreamEvents call until it ends (or `until` says stop); returns events and the end status. */
export function collect(
  stream: ClientReadableStream<SessionEvent>,
  until?: (e: SessionEvent, all: SessionEvent[]) => boolean,
): Promise<{ events: SessionEvent[]; error?: ServiceError }> {
  return new Promise((resolve) => {
    const events: SessionEvent[] = [];
    let done = false;
    stream.on('data', (e: SessionEvent) => {
      events.push(e);
      if (!done && until?.(e, events)) {
        done = true;
        stream.cancel();
        resolve({ events });
      }
    });
    stream.on('error', (error: ServiceError) => {
      if (!done) {
        done = true;
        resolve({ events, error: error.code === status.CANCELLED ? undefined : error });
      }
    });
    stream.on('end', () => {
      if (!done) {
        done = true;
        resolve({ events });
      }
    });
  });
}

export function streamEvents(
  client: BridgeServiceClient,
  req: Partial<StreamEventsRequest> & { sessionId: string },
  md: Metadata,
): ClientReadableStream<SessionEvent> {
  return client.streamEvents({ subscriberId: '', ...req }, md);
}

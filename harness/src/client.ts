import { createSecureContext } from 'node:tls';
import type { CertAndKey } from '@agent-bridge/pki';
import {
  BridgeServiceClient,
  EventType,
  type SessionEvent,
  type StreamEventsRequest,
} from '@agent-bridge/proto';
import { describeWait, type WaitDescription } from '@agent-bridge/waits';
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

/** A unary method of the client, as `call` takes it. */
export type UnaryMethod<Req, Res> = (
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

/** A compact view of a session's events, for assertion and timeout messages. */
export const showEvents = (all: SessionEvent[]) =>
  all.map((e) => `${e.seq} ${EventType[e.type]} ${e.turnId} ${e.text.slice(0, 120)}`).join('\n');

/** How a stream ended: OK, or the status the server (not our own cancel) ended it with. */
export interface StreamEnd {
  events: SessionEvent[];
  error?: ServiceError;
}

/** The default bound on every stream wait. */
export const STREAM_WAIT_MS = 20_000;

/** A StreamEvents (or any event stream) call being read, with waits on what has arrived. */
export interface EventWatch {
  /** Every event received so far: whatever arrived, for callers that ask for exactly that. */
  readonly events: SessionEvent[];
  /**
   * Resolves with the events received up to the one after which `pred`
   * first held. Throws when the stream ends first, or after `timeoutMs`.
   */
  until(
    what: WaitDescription,
    pred: (all: SessionEvent[]) => boolean,
    timeoutMs?: number,
  ): Promise<SessionEvent[]>;
  /** Resolves when the stream ends (cancelling it ourselves counts as OK). Throws after `timeoutMs`. */
  ended(timeoutMs?: number): Promise<StreamEnd>;
  cancel(): void;
}

const endStatus = (error: ServiceError | undefined) =>
  error ? `${status[error.code] ?? error.code}: ${error.details}` : 'OK';

/** Starts reading `stream` (it flows unless the caller pauses it). */
export function watchEvents(stream: ClientReadableStream<SessionEvent>): EventWatch {
  const events: SessionEvent[] = [];
  const waiters = new Set<() => void>();
  let end: StreamEnd | undefined;
  const finish = (error?: ServiceError) => {
    if (end) return;
    end = { events, ...(error && error.code !== status.CANCELLED ? { error } : {}) };
    for (const w of [...waiters]) w();
  };
  stream.on('data', (e: SessionEvent) => {
    events.push(e);
    for (const w of [...waiters]) w();
  });
  stream.on('error', (error: ServiceError) => finish(error));
  stream.on('end', () => finish());

  const wait = <T>(
    what: string,
    timeoutMs: number,
    check: () => { value: T } | { fail: string } | undefined,
  ) =>
    new Promise<T>((resolve, reject) => {
      const settle = () => {
        const r = check();
        if (!r) return;
        done();
        if ('value' in r) resolve(r.value);
        else reject(new Error(r.fail));
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; ${events.length} events so far:\n${showEvents(events)}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(settle);
      };
      waiters.add(settle);
      settle();
    });

  return {
    events,
    until: (what, pred, timeoutMs = STREAM_WAIT_MS) => {
      const desc = describeWait(what);
      return wait<SessionEvent[]>(desc, timeoutMs, () => {
        if (pred(events)) return { value: events.slice() };
        if (end)
          return {
            fail: `the stream ended (${endStatus(end.error)}) before ${desc}; ${events.length} events:\n${showEvents(events)}`,
          };
        return undefined;
      });
    },
    ended: (timeoutMs = STREAM_WAIT_MS) =>
      wait<StreamEnd>('the stream to end', timeoutMs, () => (end ? { value: end } : undefined)),
    cancel: () => stream.cancel(),
  };
}

/**
 * Reads a StreamEvents call. Without `until`: to its end, resolving with the
 * events and the status it ended with. With `until`: until it holds for an
 * event (then the call is cancelled), resolving with the events up to that
 * one; a stream that ends first fails the wait. Every wait fails after
 * `timeoutMs`, saying what it waited for and what had arrived.
 */
export async function collect(
  stream: ClientReadableStream<SessionEvent>,
  until?: (e: SessionEvent, all: SessionEvent[]) => boolean,
  opts: { what?: WaitDescription; timeoutMs?: number } = {},
): Promise<StreamEnd> {
  const w = watchEvents(stream);
  if (!until) {
    try {
      return await w.ended(opts.timeoutMs);
    } catch (err) {
      stream.cancel();
      throw err;
    }
  }
  // `until` sees each event once, with the events up to it.
  let seen = 0;
  let held = false;
  const pred = (all: SessionEvent[]) => {
    while (!held && seen < all.length) {
      seen++;
      held = until(all[seen - 1]!, seen === all.length ? all : all.slice(0, seen));
    }
    return held;
  };
  try {
    const events = await w.until(opts.what ?? `the event that ${until}`, pred, opts.timeoutMs);
    return { events: events.slice(0, seen) };
  } finally {
    stream.cancel();
  }
}

export function streamEvents(
  client: BridgeServiceClient,
  req: Partial<StreamEventsRequest> & { sessionId: string },
  md: Metadata,
): ClientReadableStream<SessionEvent> {
  return client.streamEvents({ subscriberId: '', ...req }, md);
}

import { spawn } from 'node:child_process';
import { createSecureContext } from 'node:tls';
import type { CertAndKey } from '@agent-bridge/pki';
import {
  BridgeServiceClient,
  BridgeServiceService,
  type SessionEvent,
  type SessionEventBatch,
} from '@agent-bridge/proto';
import {
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  type ServerWritableStream,
} from '@grpc/grpc-js';

/**
 * Raw pipe ingest: a child writes `n` lines of `width` bytes; the parent
 * counts newlines. The physical limit of getting agent output into the daemon.
 */
export async function pipeLinesPerSecond(
  script: string,
  n: number,
  width: number,
): Promise<number> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [script, 'lines', String(n), String(width)], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let lines = 0;
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (b: Buffer) => {
      for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
      if (lines >= n + 1) resolve();
    });
  });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  child.kill();
  return n / secs;
}

/**
 * Bare grpc-js over TLS 1.3 mTLS in this process: a server stream sending `n`
 * events of the same shape, unbatched or in batches. No daemon, no ring.
 */
export async function bareGrpcEventsPerSecond(
  pki: { ca: CertAndKey; server: CertAndKey; client: CertAndKey },
  n: number,
  width: number,
  batch: number,
): Promise<number> {
  const ev = (seq: number): SessionEvent => ({
    seq: BigInt(seq),
    timestamp: new Date(),
    sessionId: '0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e',
    projectId: 'bench',
    provider: 'bench',
    type: 4,
    stream: 'stdout',
    text: 'x'.repeat(width),
    done: false,
    error: '',
    turnId: '',
    data: undefined,
  });
  const server = new Server();
  const impl = {
    streamEvents: async (call: ServerWritableStream<unknown, SessionEvent>) => {
      for (let i = 1; i <= n; i++) {
        if (!call.write(ev(i))) await new Promise((r) => call.once('drain', r));
      }
      call.end();
    },
    streamEventBatches: async (call: ServerWritableStream<unknown, SessionEventBatch>) => {
      for (let i = 1; i <= n; i += batch) {
        const events = Array.from({ length: Math.min(batch, n - i + 1) }, (_, k) => ev(i + k));
        if (!call.write({ events })) await new Promise((r) => call.once('drain', r));
      }
      call.end();
    },
  };
  server.addService(BridgeServiceService, impl as never);
  const creds = ServerCredentials.createSsl(
    Buffer.from(pki.ca.certPem),
    [{ private_key: Buffer.from(pki.server.keyPem), cert_chain: Buffer.from(pki.server.certPem) }],
    true,
  );
  const port = await new Promise<number>((res, rej) =>
    server.bindAsync('127.0.0.1:0', creds, (e, p) => (e ? rej(e) : res(p))),
  );
  const client = new BridgeServiceClient(
    `127.0.0.1:${port}`,
    credentials.createFromSecureContext(
      createSecureContext({
        minVersion: 'TLSv1.3',
        ca: pki.ca.certPem,
        cert: pki.client.certPem,
        key: pki.client.keyPem,
      }),
    ),
    { 'grpc.ssl_target_name_override': 'localhost', 'grpc.max_receive_message_length': 64 << 20 },
  );
  const t0 = process.hrtime.bigint();
  let got = 0;
  await new Promise<void>((resolve, reject) => {
    const req = { sessionId: 'x', subscriberId: '' };
    const s =
      batch > 1
        ? client.streamEventBatches(req, new Metadata())
        : client.streamEvents(req, new Metadata());
    s.on('data', (m: SessionEvent | SessionEventBatch) => {
      got += 'events' in m ? m.events.length : 1;
    });
    s.on('end', resolve);
    s.on('error', reject);
  });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  client.close();
  server.forceShutdown();
  if (got !== n) throw new Error(`reference received ${got} of ${n}`);
  return n / secs;
}

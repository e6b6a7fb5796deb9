// The bare grpc-js reference, in its own process like the daemon: BridgeService
// over TLS 1.3 mutual TLS with nothing behind it (no auth, no ring, no agent).
// Run as `reference-server.ts <ca> <cert> <key>`; prints REFERENCE_READY
// port=<n>, then takes one JSON command a line on stdin and answers each with
// a JSON line on stdout, so that what it will send is built before any timed
// part starts. A stream request's session_id names the form to send:
//   "encode"       the prepared events, each encoded as grpc-js writes it
//                  (the generated serializer), one event or one batch a message
//   "pre-encoded"  the same messages encoded beforehand, written as bytes:
//                  the transport ceiling
//   "latency"      stamped events at a paced rate over all open latency streams
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  BridgeServiceService,
  GetSessionResponse,
  SessionEvent,
  SessionEventBatch,
  type StreamEventsRequest,
} from '@agent-bridge/proto';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { paced, stampedLine } from './pace.js';

type Command =
  | { cmd: 'prepare'; template: string; count: number; batch: number }
  | { cmd: 'unary'; response: string }
  | {
      cmd: 'latency';
      template: string;
      streams: number;
      perSecond: number;
      total: number;
      width: number;
    };

interface Prepared {
  events: SessionEvent[];
  batches: SessionEventBatch[];
  eventBytes: Buffer[];
  batchBytes: Buffer[];
}

const [caPath, certPath, keyPath] = process.argv.slice(2);
if (!caPath || !certPath || !keyPath) {
  process.stderr.write('usage: reference-server.ts <ca.pem> <cert.pem> <key.pem>\n');
  process.exit(2);
}

let prepared: Prepared = { events: [], batches: [], eventBytes: [], batchBytes: [] };
let unaryResponse: GetSessionResponse = GetSessionResponse.fromPartial({});
let latency: Extract<Command, { cmd: 'latency' }> | undefined;
const latencyStreams: ServerWritableStream<StreamEventsRequest, SessionEvent>[] = [];
let template = SessionEvent.fromPartial({});

// A Buffer is written as it is; anything else goes through the generated
// serializer, exactly what the plain service definition would do.
const passThrough =
  <T>(encode: (v: T) => Buffer) =>
  (v: T | Buffer) =>
    Buffer.isBuffer(v) ? v : encode(v);
const service = {
  ...BridgeServiceService,
  streamEvents: {
    ...BridgeServiceService.streamEvents,
    responseSerialize: passThrough(BridgeServiceService.streamEvents.responseSerialize),
  },
  streamEventBatches: {
    ...BridgeServiceService.streamEventBatches,
    responseSerialize: passThrough(BridgeServiceService.streamEventBatches.responseSerialize),
  },
};

async function writeAll<T>(call: ServerWritableStream<StreamEventsRequest, T>, messages: T[]) {
  for (const m of messages) {
    if (call.cancelled) return;
    if (!call.write(m)) await once(call, 'drain');
  }
  call.end();
}

function prepare(c: Extract<Command, { cmd: 'prepare' }>): Prepared {
  template = SessionEvent.decode(Buffer.from(c.template, 'base64'));
  const events = Array.from({ length: c.count }, (_, i) => ({ ...template, seq: BigInt(i + 1) }));
  const batches: SessionEventBatch[] = [];
  for (let i = 0; i < events.length; i += c.batch) {
    batches.push({ events: events.slice(i, i + c.batch) });
  }
  return {
    events,
    batches,
    eventBytes: events.map((e) => Buffer.from(SessionEvent.encode(e).finish())),
    batchBytes: batches.map((b) => Buffer.from(SessionEventBatch.encode(b).finish())),
  };
}

async function runLatency(l: NonNullable<typeof latency>) {
  const streams = latencyStreams.splice(0);
  await paced(l.perSecond, l.total, (i) => {
    const call = streams[i % streams.length]!;
    call.write({ ...template, seq: BigInt(i + 1), text: stampedLine(l.width) });
  });
  for (const s of streams) s.end();
}

const impl = {
  getSession: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<GetSessionResponse>) =>
    cb(null, unaryResponse),
  streamEvents: (call: ServerWritableStream<StreamEventsRequest, SessionEvent | Buffer>) => {
    const form = call.request.sessionId;
    if (form === 'latency') {
      latencyStreams.push(call as ServerWritableStream<StreamEventsRequest, SessionEvent>);
      if (latency && latencyStreams.length === latency.streams) void runLatency(latency);
      return;
    }
    void writeAll(call, form === 'pre-encoded' ? prepared.eventBytes : prepared.events);
  },
  streamEventBatches: (
    call: ServerWritableStream<StreamEventsRequest, SessionEventBatch | Buffer>,
  ) => {
    void writeAll(
      call,
      call.request.sessionId === 'pre-encoded' ? prepared.batchBytes : prepared.batches,
    );
  },
};

const server = new Server();
server.addService(service as typeof BridgeServiceService, impl as never);
const creds = ServerCredentials.createSsl(
  readFileSync(caPath),
  [{ private_key: readFileSync(keyPath), cert_chain: readFileSync(certPath) }],
  true,
);
server.bindAsync('127.0.0.1:0', creds, (err, port) => {
  if (err) throw err;
  process.stdout.write(`REFERENCE_READY port=${port}\n`);
});

const reply = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  const c = JSON.parse(line) as Command;
  if (c.cmd === 'prepare') prepared = prepare(c);
  else if (c.cmd === 'unary') {
    unaryResponse = GetSessionResponse.decode(Buffer.from(c.response, 'base64'));
  } else if (c.cmd === 'latency') {
    template = SessionEvent.decode(Buffer.from(c.template, 'base64'));
    latency = c;
  }
  reply({ ok: c.cmd });
});
// The bench closes stdin to stop it: whatever it was doing, it is done.
process.stdin.on('end', () => {
  server.forceShutdown();
  process.exit(0);
});

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
// Beside it, a second listener with no gRPC library at all (node:http2 over
// the same TLS 1.3 mutual TLS): both event streams answered with the
// prepared messages as whole gRPC frames (length prefix and message, built
// beforehand), written in a loop that does nothing else. The tightest
// transport ceiling: Node's HTTP/2 and TLS and nothing of ours or grpc-js.
// Its port is on the readiness line: REFERENCE_READY port=<n> raw=<m>.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createSecureServer, constants as h2, type ServerHttp2Stream } from 'node:http2';
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
  /** eventBytes and batchBytes as gRPC frames: flag byte, big-endian length, message. */
  eventFrames: Buffer[];
  batchFrames: Buffer[];
}

const [caPath, certPath, keyPath] = process.argv.slice(2);
if (!caPath || !certPath || !keyPath) {
  process.stderr.write('usage: reference-server.ts <ca.pem> <cert.pem> <key.pem>\n');
  process.exit(2);
}

let prepared: Prepared = {
  events: [],
  batches: [],
  eventBytes: [],
  batchBytes: [],
  eventFrames: [],
  batchFrames: [],
};
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
  const eventBytes = events.map((e) => Buffer.from(SessionEvent.encode(e).finish()));
  const batchBytes = batches.map((b) => Buffer.from(SessionEventBatch.encode(b).finish()));
  return {
    events,
    batches,
    eventBytes,
    batchBytes,
    eventFrames: eventBytes.map(grpcFrame),
    batchFrames: batchBytes.map(grpcFrame),
  };
}

/** A gRPC length-prefixed message: not compressed (0), then the length, big-endian. */
function grpcFrame(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

/** Writes `frames` to an HTTP/2 stream as fast as it drains, then an OK status as trailers. */
function writeFrames(stream: ServerHttp2Stream, frames: Buffer[]): void {
  let i = 0;
  const pump = () => {
    while (i < frames.length) {
      if (stream.destroyed) return;
      if (!stream.write(frames[i++])) return void stream.once('drain', pump);
    }
    if (!stream.destroyed) stream.end();
  };
  stream.respond(
    { [h2.HTTP2_HEADER_STATUS]: 200, [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc' },
    { waitForTrailers: true },
  );
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.on('error', () => undefined); // the reader cancels once it has counted enough
  pump();
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
const raw = createSecureServer({
  ca: readFileSync(caPath),
  cert: readFileSync(certPath),
  key: readFileSync(keyPath),
  requestCert: true,
  rejectUnauthorized: true,
  minVersion: 'TLSv1.3',
});
const RAW_PATHS: Record<string, () => Buffer[]> = {
  '/bridge.v1.BridgeService/StreamEvents': () => prepared.eventFrames,
  '/bridge.v1.BridgeService/StreamEventBatches': () => prepared.batchFrames,
};
raw.on('stream', (stream, headers) => {
  const frames = RAW_PATHS[String(headers[h2.HTTP2_HEADER_PATH])];
  if (!frames) {
    // A trailers-only response: UNIMPLEMENTED, like any gRPC server.
    stream.respond(
      {
        [h2.HTTP2_HEADER_STATUS]: 200,
        [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        'grpc-status': '12',
      },
      { endStream: true },
    );
    return;
  }
  stream.resume(); // the request message is not needed: the path says what to send
  writeFrames(stream, frames());
});
server.bindAsync('127.0.0.1:0', creds, (err, port) => {
  if (err) throw err;
  raw.listen(0, '127.0.0.1', () => {
    const address = raw.address();
    if (address === null || typeof address === 'string') throw new Error('raw listener address');
    process.stdout.write(`REFERENCE_READY port=${port} raw=${address.port}\n`);
  });
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
  raw.close();
  process.exit(0);
});

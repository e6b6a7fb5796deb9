import { EventType, SessionEvent, StreamEventsRequest } from '@agent-bridge/proto';
import type { Client, ClientReadableStream, Metadata, ServiceError } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';

/**
 * One event as it came over the wire: the two fields the bench reads, and
 * its bytes (a whole SessionEvent encoding) for the rare event it decodes.
 */
export interface WireEvent {
  seq: number;
  type: EventType;
  bytes: Buffer;
}

/** A stream being read until `done` holds for an event; the same code reads daemon and reference. */
export interface StreamRead {
  /** Resolves when the first message arrives (the subscription is attached). */
  readonly first: Promise<void>;
  /** Resolves with the monotonic time (ns) at which `done` held; the stream is then cancelled. */
  readonly done: Promise<bigint>;
}

const METHOD = {
  events: '/bridge.v1.BridgeService/StreamEvents',
  batches: '/bridge.v1.BridgeService/StreamEventBatches',
};

/**
 * Opens an event stream whose messages arrive as their bytes: the reader
 * walks the protobuf framing for seq and type instead of building an object
 * per event, so the bench process spends little per event and the number
 * measured is the server's, not this client's decoding.
 */
export function openRawStream(
  client: Client,
  batched: boolean,
  request: StreamEventsRequest,
  md: Metadata,
): ClientReadableStream<Buffer> {
  return client.makeServerStreamRequest(
    batched ? METHOD.batches : METHOD.events,
    (r: StreamEventsRequest) => Buffer.from(StreamEventsRequest.encode(r).finish()),
    (bytes: Buffer) => bytes,
    request,
    md,
  );
}

/**
 * Reads `stream` (single events or batches, as bytes). A BUFFER_OVERFLOW
 * would make any number meaningless, so it fails the read, as does the
 * stream ending before `done` holds or `timeoutMs` passing.
 */
export function readUntil(
  what: string,
  stream: ClientReadableStream<Buffer>,
  batched: boolean,
  done: (e: WireEvent) => boolean,
  timeoutMs: number,
): StreamRead {
  let firstSeen: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    firstSeen = resolve;
  });
  const finished = new Promise<bigint>((resolve, reject) => {
    let over = false;
    const fail = (err: Error) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      stream.cancel();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new Error(`timed out after ${timeoutMs} ms reading ${what}`)),
      timeoutMs,
    );
    const onEvent = (e: WireEvent) => {
      if (over) return;
      if (e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW) {
        fail(new Error(`${what}: the reader overflowed at seq ${e.seq}; the ring is too small`));
      } else if (done(e)) {
        const at = process.hrtime.bigint();
        over = true;
        clearTimeout(timer);
        stream.cancel();
        resolve(at);
      }
    };
    stream.on('data', (m: Buffer) => {
      firstSeen();
      try {
        if (batched) forEachField1(m, (at, end) => onEvent(wireEvent(m, at, end)));
        else onEvent(wireEvent(m, 0, m.length));
      } catch (err) {
        fail(new Error(`${what}: ${(err as Error).message}`));
      }
    });
    stream.on('error', (e: ServiceError) => {
      if (e.code !== status.CANCELLED || !over) fail(new Error(`${what}: ${e.message}`));
    });
    stream.on('end', () => fail(new Error(`${what}: the stream ended before its last event`)));
  });
  return { first, done: finished };
}

/** Counts events of type STDOUT until `n` have arrived. */
export function stdoutCount(n: number): (e: WireEvent) => boolean {
  let seen = 0;
  return (e) => e.type === EventType.EVENT_TYPE_STDOUT && ++seen >= n;
}

/** `e` decoded whole. */
export const decodeEvent = (e: WireEvent): SessionEvent => SessionEvent.decode(e.bytes);

/** SessionEvent fields the reader picks out. */
const SEQ = 1;
const TYPE = 6;

/** The seq and type of the SessionEvent encoded in `buf[at, end)`. */
function wireEvent(buf: Buffer, at: number, end: number): WireEvent {
  let seq = 0;
  let type = 0;
  const r = { at };
  while (r.at < end) {
    const tag = varint(buf, r);
    const field = tag >>> 3;
    switch (tag & 7) {
      case 0: {
        const v = varint(buf, r);
        if (field === SEQ) seq = v;
        else if (field === TYPE) type = v;
        break;
      }
      case 1:
        r.at += 8;
        break;
      case 2: {
        const len = varint(buf, r); // read first: it moves r.at
        r.at += len;
        break;
      }
      case 5:
        r.at += 4;
        break;
      default:
        throw new Error(`unexpected wire type ${tag & 7} in a SessionEvent`);
    }
  }
  return { seq, type, bytes: buf.subarray(at, end) };
}

/** Calls `fn` with the bounds of every field-1 (`events`) entry of a SessionEventBatch. */
function forEachField1(buf: Buffer, fn: (at: number, end: number) => void): void {
  const r = { at: 0 };
  while (r.at < buf.length) {
    const tag = varint(buf, r);
    if (tag !== ((1 << 3) | 2)) throw new Error(`unexpected tag ${tag} in a SessionEventBatch`);
    const len = varint(buf, r);
    fn(r.at, r.at + len);
    r.at += len;
  }
}

/** A varint below 2^53 at `r.at`, advancing it. */
function varint(buf: Buffer, r: { at: number }): number {
  let n = 0;
  let scale = 1;
  for (;;) {
    const b = buf[r.at++];
    if (b === undefined) throw new Error('a truncated varint');
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
    scale *= 128;
  }
}

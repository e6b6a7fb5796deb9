import type { BridgeEvent, EventCodec, EventSlice, SessionIdentity } from '@agent-bridge/bridge';
import {
  type BridgeServiceServer,
  BridgeServiceService,
  SessionEvent,
  type StreamEventsRequest,
} from '@agent-bridge/proto';
import type { handleServerStreamingCall } from '@grpc/grpc-js';
import { fromProtoEvent, toProtoEventType } from './convert.js';
import { EventPartWriter, varintSize } from './private/event-part-writer.js';

/**
 * Events as the rings hold them: a SessionEvent's wire encoding without the
 * session's identity (the same for every event of a ring, so it is written
 * once per stream, see sessionSuffix). Each event is encoded once, when it
 * is stored; every reader sends those bytes. `encode` returns a view of one
 * reused buffer (the ring copies it at once), so it allocates nothing.
 */
export function wireEventCodec(): EventCodec {
  const writer = new EventPartWriter();
  return {
    encode: (e: BridgeEvent) => writer.write(e, toProtoEventType(e.type)),
    decode: (bytes, session) => ({ ...fromProtoEvent(SessionEvent.decode(bytes)), ...session }),
  };
}

/**
 * The identity fields of a SessionEvent, encoded. Protobuf merges the
 * fields of concatenated encodings, so an event's part followed by this is
 * the whole SessionEvent.
 */
export function sessionSuffix(session: SessionIdentity): Buffer {
  return Buffer.from(
    SessionEvent.encode({
      ...SessionEvent.fromPartial({}),
      sessionId: session.sessionId,
      projectId: session.projectId,
      provider: session.provider,
    }).finish(),
  );
}

/** Event `i` of `slice` as one SessionEvent message: its stored bytes and its session's suffix. */
export function eventMessage(slice: EventSlice, i: number, suffix: Buffer): Buffer {
  const size = slice.size(i);
  const out = Buffer.allocUnsafe(size + suffix.length);
  slice.copyTo(i, out, 0);
  suffix.copy(out, size);
  return out;
}

/** `slice` as a SessionEventBatch message: every event as field 1 (`events`), each followed by the suffix. */
export function batchMessage(slice: EventSlice, suffix: Buffer): Buffer {
  let total = 0;
  for (let i = 0; i < slice.count; i++) {
    const len = slice.size(i) + suffix.length;
    total += 1 + varintSize(len) + len;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < slice.count; i++) {
    out[at++] = EVENTS_FIELD_TAG;
    at = writeVarint(out, at, slice.size(i) + suffix.length);
    at += slice.copyTo(i, out, at);
    at += suffix.copy(out, at);
  }
  return out;
}

/** Field 1, wire type 2 (length-delimited): SessionEventBatch.events. */
const EVENTS_FIELD_TAG = (1 << 3) | 2;

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

const passThrough = (bytes: Buffer): Buffer => bytes;

/**
 * BridgeService whose event streams take messages already encoded (see
 * eventMessage and batchMessage) and write them as they are; every other
 * method is the generated one.
 */
export const bytesStreamingService = {
  ...BridgeServiceService,
  streamEvents: { ...BridgeServiceService.streamEvents, responseSerialize: passThrough },
  streamEventBatches: {
    ...BridgeServiceService.streamEventBatches,
    responseSerialize: passThrough,
  },
};

/** The BridgeService implementation for bytesStreamingService: event streams write encoded messages. */
export type BytesStreamingServer = Omit<
  BridgeServiceServer,
  'streamEvents' | 'streamEventBatches'
> & {
  streamEvents: handleServerStreamingCall<StreamEventsRequest, Buffer>;
  streamEventBatches: handleServerStreamingCall<StreamEventsRequest, Buffer>;
};

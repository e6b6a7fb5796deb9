import type { BridgeEvent } from './event.js';

/** What every event of one session shares, so a ring stores it once, not per event. */
export interface SessionIdentity {
  sessionId: string;
  projectId: string;
  provider: string;
}

/**
 * How events are held in a ring: each is encoded once, when it is stored,
 * and every reader is handed those bytes. The daemon passes its wire
 * encoding, so a reader's bytes go out as they are; the core never knows
 * the format. `encode` leaves out the session's identity (every event of a
 * ring shares it) and `decode` puts it back. What `encode` returns may be
 * reused by its next call: the ring copies it at once.
 */
export interface EventCodec {
  encode(event: BridgeEvent): Uint8Array;
  decode(bytes: Uint8Array, session: SessionIdentity): BridgeEvent;
}

/** JSON of the fields that vary per event: for embedders and tests without a wire format. */
export const jsonEventCodec: EventCodec = {
  encode: (e) =>
    Buffer.from(
      JSON.stringify([
        e.seq,
        e.timestamp,
        e.type,
        e.stream,
        e.text,
        e.done,
        e.error,
        e.turnId,
        e.data ?? null,
      ]),
    ),
  decode: (bytes, session) => {
    const [seq, timestamp, type, stream, text, done, error, turnId, data] = JSON.parse(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
    );
    return {
      seq,
      timestamp,
      ...session,
      type,
      stream,
      text,
      done,
      error,
      turnId,
      data: data ?? undefined,
    };
  },
};

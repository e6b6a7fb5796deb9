import type { BridgeEvent } from './event.js';
import type { EventCodec, SessionIdentity } from './event-codec.js';

/**
 * Consecutive events of one session as their encoded bytes (see
 * EventCodec): what a reader is handed, so that every reader of an event
 * sends the bytes encoded when it was stored.
 */
export class EventSlice {
  constructor(
    /** Seq of the first event. */
    readonly firstSeq: number,
    /** Each event's bytes, in seq order. */
    readonly parts: readonly Uint8Array[],
    /** Whether the last event ends the session's stream. */
    readonly terminal: boolean,
    private readonly codec: EventCodec,
    private readonly session: SessionIdentity,
  ) {}

  get count(): number {
    return this.parts.length;
  }

  get lastSeq(): number {
    return this.firstSeq + this.parts.length - 1;
  }

  /** Sum of the parts' lengths. */
  get bytes(): number {
    let n = 0;
    for (const p of this.parts) n += p.byteLength;
    return n;
  }

  /** The events decoded back (in-process readers; the daemon sends `parts`). */
  events(): BridgeEvent[] {
    return this.parts.map((p) => this.codec.decode(p, this.session));
  }
}

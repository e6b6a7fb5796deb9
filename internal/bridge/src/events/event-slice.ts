import type { BridgeEvent } from './event.js';
import type { EventCodec, SessionIdentity } from './event-codec.js';

/** Where the bytes of each event of a slice are: a chunk of the ring and a range in it. */
export interface SliceParts {
  chunks: Buffer[];
  starts: number[];
  lengths: number[];
}

/**
 * Consecutive events of one session as their encoded bytes (see
 * EventCodec): what a reader is handed, so that every reader of an event
 * sends the bytes encoded when it was stored. The bytes stay where the
 * ring keeps them (chunks are never reused, so they stay valid); a reader
 * copies them out with `copyTo`, with no object made per event.
 */
export class EventSlice {
  constructor(
    /** Seq of the first event. */
    readonly firstSeq: number,
    private readonly at: SliceParts,
    /** Whether the last event ends the session's stream. */
    readonly terminal: boolean,
    private readonly codec: EventCodec,
    private readonly session: SessionIdentity,
  ) {}

  get count(): number {
    return this.at.lengths.length;
  }

  get lastSeq(): number {
    return this.firstSeq + this.count - 1;
  }

  /** Sum of the events' encoded sizes. */
  get bytes(): number {
    let n = 0;
    for (const len of this.at.lengths) n += len;
    return n;
  }

  /** Encoded size of event `i` (0 is the first). */
  size(i: number): number {
    return this.at.lengths[i]!;
  }

  /** Copies the bytes of event `i` into `target` at `offset`; returns the bytes copied. */
  copyTo(i: number, target: Buffer, offset: number): number {
    const start = this.at.starts[i]!;
    return this.at.chunks[i]!.copy(target, offset, start, start + this.at.lengths[i]!);
  }

  /** The bytes of event `i`: a view of the ring's storage, not a copy. */
  part(i: number): Buffer {
    const start = this.at.starts[i]!;
    return this.at.chunks[i]!.subarray(start, start + this.at.lengths[i]!);
  }

  /** The events decoded back (in-process readers; the daemon sends the bytes). */
  events(): BridgeEvent[] {
    const out: BridgeEvent[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.codec.decode(this.part(i), this.session));
    return out;
  }
}

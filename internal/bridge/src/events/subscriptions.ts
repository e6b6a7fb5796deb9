import type { Clock } from '../clock.js';
import { exhausted, outOfRange } from '../errors.js';
import type { Session } from '../sessions/session.js';
import type { SessionIdentity } from './event-codec.js';
import { type EventObserver, noEventObserver } from './event-observer.js';
import { readEvents } from './event-reader.js';
import type { EventSlice } from './event-slice.js';

export interface StreamRequest {
  sessionId: string;
  /** Where to resume; undefined resumes from the subscriber's ack or the oldest retained event. */
  afterSeq: number | undefined;
  /** Empty for an anonymous reader, which has no cursor. */
  subscriberId: string;
}

/** Bounds of each batch a stream yields. */
export interface BatchLimits {
  maxEvents: number;
  maxBytes: number;
}

/** An open event stream: an async iterable of slices (encoded events) that must be closed. */
export interface EventStream extends AsyncIterable<EventSlice> {
  /** The session read, whose identity the slices' encodings leave out (see EventCodec). */
  readonly session: SessionIdentity;
  close(): void;
}

/**
 * Readers of sessions and their acknowledged positions. A stream counts
 * against its session's reader limit, and keeps the session from going
 * idle, until it is closed.
 */
export class Subscriptions {
  constructor(
    private readonly clock: Clock,
    private readonly maxSubscribers: number,
    private readonly observer: EventObserver = noEventObserver,
  ) {}

  /**
   * Opens a reader on `session`. Checks happen here, before the first
   * event, so the caller can fail the request before it starts streaming.
   */
  open(session: Session, req: StreamRequest, signal: AbortSignal, batch: BatchLimits): EventStream {
    const ring = session.ring;
    // Against the last committed seq: no caller can have been told of a
    // later one (readers get committed events only, and SendInput answers
    // once its event is committed), and GetSession reports the same seq.
    if (req.afterSeq !== undefined && req.afterSeq > ring.lastSeq) {
      throw outOfRange(
        `after_seq ${req.afterSeq} is beyond the last seq ${ring.lastSeq}`,
        'after_seq_beyond_last',
      );
    }
    if (session.readers.count >= this.maxSubscribers) {
      throw exhausted(
        `session ${session.id} already has ${session.readers.count} readers`,
        'reader_limit',
      );
    }
    const acked = req.subscriberId
      ? session.cursors.get(req.subscriberId, this.clock.now())
      : undefined;
    const afterSeq =
      req.afterSeq ?? acked ?? (ring.oldestSeq > 0 ? ring.oldestSeq - 1 : ring.lastSeq);
    return new Subscription(
      session,
      req.subscriberId,
      this.clock,
      afterSeq,
      batch,
      signal,
      this.observer,
    );
  }

  /** Moves `subscriberId`'s cursor forward to `ackSeq`; returns the cursor's position. */
  ack(session: Session, subscriberId: string, ackSeq: number): number {
    // Committed seqs only, as for after_seq: a cursor past them could name
    // an event a restart gives another seq.
    const last = session.ring.lastSeq;
    if (ackSeq > last) {
      throw outOfRange(`ack_seq ${ackSeq} is beyond the last seq ${last}`, 'ack_seq_beyond_last');
    }
    return session.cursors.ack(subscriberId, ackSeq, this.clock.now());
  }
}

/** One open stream; it stops counting as a reader once closed or returned. */
class Subscription implements EventStream {
  readonly session: SessionIdentity;
  private open = true;
  private readonly batches: AsyncGenerator<EventSlice>;

  constructor(
    private readonly source: Session,
    private readonly subscriberId: string,
    private readonly clock: Clock,
    afterSeq: number,
    batch: BatchLimits,
    signal: AbortSignal,
    observer: EventObserver,
  ) {
    const { sessionId, projectId, provider } = source.request;
    this.session = { sessionId, projectId, provider };
    source.readers.attached(clock.now());
    this.batches = readEvents(
      source,
      {
        afterSeq,
        maxBatchEvents: batch.maxEvents,
        maxBatchBytes: batch.maxBytes,
        onProgress: () => this.touch(),
        onBatch: (slice, overflow) => observer.delivered(slice.count, slice.bytes, overflow),
      },
      signal,
    );
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.source.readers.detached();
    this.touch();
  }

  [Symbol.asyncIterator](): AsyncIterator<EventSlice> {
    return {
      next: () => this.batches.next(),
      return: (value?: unknown) => {
        this.close();
        return this.batches.return(value);
      },
    };
  }

  /** Reading is activity: the session is not idle and the subscriber's cursor stays alive. */
  private touch(): void {
    const now = this.clock.now();
    this.source.readers.touched(now);
    if (this.subscriberId) this.source.cursors.touch(this.subscriberId, now);
  }
}

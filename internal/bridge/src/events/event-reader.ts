import type { Session } from '../sessions/session.js';
import type { EventSlice } from './event-slice.js';

export interface ReadOptions {
  /** Seq after which to start (resolved resume point). */
  afterSeq: number;
  /** Most events per yielded slice. */
  maxBatchEvents: number;
  /** Most encoded bytes per yielded slice; a single larger event still goes alone. */
  maxBatchBytes: number;
  /** Called with the seq of the last event of each yielded slice. */
  onProgress?: (seq: number) => void;
  /** Called with each slice about to be yielded, and whether it is this reader's overflow notice (metrics). */
  onBatch?: (slice: EventSlice, overflow: boolean) => void;
}

/**
 * Reads a session's events from a position: replay, then live tail, then
 * completion after the terminal event. It reads the ring, which holds only
 * events the session store has committed. The reader holds only a seq, so a
 * consumer that stops pulling (gRPC backpressure) costs nothing; when its
 * position has been evicted meanwhile it gets one BUFFER_OVERFLOW event
 * with the missing range and continues from the oldest retained event.
 * Slices carry the bytes the ring encoded once for every reader.
 */
export async function* readEvents(
  session: Session,
  opts: ReadOptions,
  signal: AbortSignal,
): AsyncGenerator<EventSlice> {
  const ring = session.ring;
  let next = opts.afterSeq + 1;
  // One abort listener for the whole read, not one per wait: a live reader
  // waits once per event or so.
  let wake: (() => void) | undefined;
  const onAbort = () => {
    if (!wake) return;
    ring.cancelNextPush(wake);
    wake();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (!signal.aborted) {
      if (next <= ring.lastSeq) {
        const oldest = ring.oldestSeq;
        if (next < oldest) {
          const overflow = ring.unstored(overflowEvent(session, next, oldest - 1));
          opts.onBatch?.(overflow, true);
          yield overflow;
          next = oldest;
          continue;
        }
        const slice = ring.read(next, opts.maxBatchEvents, opts.maxBatchBytes)!;
        next = slice.lastSeq + 1;
        opts.onBatch?.(slice, false);
        yield slice;
        opts.onProgress?.(slice.lastSeq);
        if (slice.terminal) return;
        continue;
      }
      // Caught up: after the terminal event (committed, in the ring) none
      // follows, so only a ring without it is worth waiting on.
      if (ring.complete) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        ring.onNextPush(resolve);
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The per-reader event telling it that [first, last] were evicted unread. */
function overflowEvent(session: Session, first: number, last: number) {
  const n = last - first + 1;
  return session.log.eventAt(last, {
    type: 'BUFFER_OVERFLOW',
    stream: 'system',
    text: `${n} event${n === 1 ? '' : 's'} (seq ${first}..${last}) were evicted from the buffer before this reader got them`,
    data: { first_missing: first, last_missing: last },
  });
}

import type { BridgeEvent } from './event.js';
import { eventBytes, isTerminal } from './event.js';
import type { Session } from './session.js';

export interface ReadOptions {
  /** Seq after which to start (resolved resume point). */
  afterSeq: number;
  /** Most events per yielded batch. */
  maxBatchEvents: number;
  /** Most bytes (by eventBytes) per yielded batch; a single larger event still goes alone. */
  maxBatchBytes: number;
  /** Called with the seq of the last event of each yielded batch. */
  onProgress?: (seq: number) => void;
  /** Called with each batch about to be yielded and its size by eventBytes (metrics). */
  onBatch?: (events: readonly BridgeEvent[], bytes: number) => void;
}

/**
 * Reads a session's events from a position: replay, then live tail, then
 * completion after the terminal event. The reader holds only a seq, so a
 * consumer that stops pulling (gRPC backpressure) costs nothing; when its
 * position has been evicted meanwhile it gets one BUFFER_OVERFLOW event
 * with the missing range and continues from the oldest retained event.
 */
export async function* readEvents(
  session: Session,
  opts: ReadOptions,
  signal: AbortSignal,
): AsyncGenerator<BridgeEvent[]> {
  const ring = session.ring;
  let next = opts.afterSeq + 1;
  while (!signal.aborted) {
    if (next <= ring.lastSeq) {
      const oldest = ring.oldestSeq;
      if (next < oldest) {
        const overflow = overflowEvent(session, next, oldest - 1);
        opts.onBatch?.([overflow], eventBytes(overflow));
        yield [overflow];
        next = oldest;
        continue;
      }
      let bytes = 0;
      const batch = ring.sliceBounded(
        next,
        opts.maxBatchEvents,
        opts.maxBatchBytes,
        (b) => (bytes = b),
      );
      const lastEvent = batch[batch.length - 1]!;
      next = lastEvent.seq + 1;
      const end = batch.findIndex(isTerminal);
      // Nothing follows a terminal event, so the slice's size is the batch's.
      const out = end === -1 ? batch : batch.slice(0, end + 1);
      opts.onBatch?.(out, bytes);
      yield out;
      opts.onProgress?.(lastEvent.seq);
      if (end !== -1) return;
      continue;
    }
    // Caught up: an ended session gets no more events, so only a live one is worth waiting for.
    if (session.ended) return;
    await ring.nextPush(signal);
  }
}

/** The per-reader event telling it that [first, last] were evicted unread. */
function overflowEvent(session: Session, first: number, last: number): BridgeEvent {
  const n = last - first + 1;
  return session.eventAt(last, {
    type: 'BUFFER_OVERFLOW',
    stream: 'system',
    text: `${n} event${n === 1 ? '' : 's'} (seq ${first}..${last}) were evicted from the buffer before this reader got them`,
    data: { first_missing: first, last_missing: last },
  });
}

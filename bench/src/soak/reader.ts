import {
  type BridgeServiceClient,
  EventType,
  type SessionEvent,
  type SessionEventBatch,
} from '@agent-bridge/proto';
import { type ClientReadableStream, type Metadata, status } from '@grpc/grpc-js';
import type { ErrorTally } from './error-tally.js';
import { SeqTracker } from './seq-tracker.js';

export interface ReaderOptions {
  client: BridgeServiceClient;
  md: Metadata;
  sessionId: string;
  /** StreamEventBatches rather than StreamEvents. */
  batched: boolean;
  /** Open the first stream paused and start reading only after this long. */
  stallMs?: number;
  /** Cut the stream and resume from the last seq at intervals in this range. */
  cutEveryMs?: [number, number];
  rng: () => number;
  errors: ErrorTally;
  /** Each stored event received (overflow reports are not events). */
  onEvent(e: SessionEvent): void;
}

export interface Reader {
  readonly tracker: SeqTracker;
  /** Resolves once the session's terminal event arrived and the stream completed, or the reader gave up. */
  readonly done: Promise<void>;
  /** True once a SESSION_STOPPED or SESSION_FAILED arrived. */
  readonly sawEnd: boolean;
  /** Cancels the current stream and opens no other. */
  abandon(): void;
}

const between = (rng: () => number, [lo, hi]: [number, number]) => lo + rng() * (hi - lo);

const isEnd = (t: EventType) =>
  t === EventType.EVENT_TYPE_SESSION_STOPPED || t === EventType.EVENT_TYPE_SESSION_FAILED;

/**
 * One client of a session that follows it to its end through as many streams
 * as it takes: a cut (our cancel) is followed by a resume with after_seq =
 * the last seq received, and every event is checked against the sequence
 * contract across all of them.
 */
export function startReader(o: ReaderOptions): Reader {
  const tracker = new SeqTracker();
  const method = o.batched ? 'StreamEventBatches' : 'StreamEvents';
  let sawEnd = false;
  let abandoned = false;
  let current: ClientReadableStream<SessionEvent | SessionEventBatch> | undefined;
  let cutTimer: NodeJS.Timeout | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });

  const finish = () => {
    clearTimeout(cutTimer);
    current = undefined;
    resolveDone();
  };

  const onEvent = (e: SessionEvent) => {
    const seq = Number(e.seq);
    if (e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW) {
      const d = (e.data ?? {}) as { first_missing?: number; last_missing?: number };
      tracker.see({
        seq,
        overflow: { firstMissing: Number(d.first_missing), lastMissing: Number(d.last_missing) },
      });
      return;
    }
    tracker.see({ seq });
    if (isEnd(e.type)) sawEnd = true;
    o.onEvent(e);
  };

  const open = (stallMs = 0) => {
    if (abandoned) return finish();
    const after = tracker.lastSeq;
    tracker.open(after);
    const req = { sessionId: o.sessionId, afterSeq: BigInt(after), subscriberId: '' };
    const s: ClientReadableStream<SessionEvent | SessionEventBatch> = o.batched
      ? o.client.streamEventBatches(req, o.md)
      : o.client.streamEvents(req, o.md);
    current = s;
    let cutByUs = false;
    s.on('data', (m: SessionEvent | SessionEventBatch) => {
      if ('events' in m) for (const e of m.events) onEvent(e);
      else onEvent(m);
    });
    // 'error' or 'end', whichever comes, settles this stream once.
    let settled = false;
    const settle = (err?: { code?: number; metadata?: Metadata }) => {
      if (settled) return;
      settled = true;
      clearTimeout(cutTimer);
      if (sawEnd || abandoned) return finish();
      if (err?.code === status.CANCELLED && cutByUs) {
        setTimeout(() => open(), between(o.rng, [20, 300]));
        return;
      }
      // The token that opened the stream expired (the daemon ends a stream
      // with it): resume at once, with the fresh token the metadata now holds.
      if (
        err?.code === status.UNAUTHENTICATED &&
        (err.metadata?.get('bridge-auth-expired').length ?? 0) > 0
      ) {
        open();
        return;
      }
      // The stream ended on its own before the session's end: a broken contract.
      o.errors.record(
        method,
        err ?? { code: -1, message: 'completed before the terminal event' },
        false,
      );
      finish();
    };
    s.on('error', (err: { code?: number; metadata?: Metadata }) => settle(err));
    s.on('end', () => settle());
    if (stallMs > 0) {
      s.pause();
      setTimeout(() => s.resume(), stallMs);
    }
    if (o.cutEveryMs) {
      cutTimer = setTimeout(() => {
        cutByUs = true;
        s.cancel();
      }, stallMs + between(o.rng, o.cutEveryMs));
    }
  };

  open(o.stallMs);
  return {
    tracker,
    done,
    get sawEnd() {
      return sawEnd;
    },
    abandon: () => {
      abandoned = true;
      clearTimeout(cutTimer);
      current?.cancel();
    },
  };
}

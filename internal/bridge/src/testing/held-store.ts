import type { CommitSink, EventLog, SessionStore } from '../store/session-store.js';

/**
 * A store whose commits happen when the test says: `commit()` commits every
 * append so far, `fail(error)` makes every log fail. It records what it was
 * given (seqs appended, drops), so a test sees what a real store would keep.
 */
export class HeldStore implements SessionStore {
  readonly historyId = 'held-history';
  readonly durable = true;
  /** Per session: the seqs appended, and the first seq still kept. */
  readonly logs = new Map<string, { appended: number[]; keptFrom: number }>();
  private readonly sinks = new Map<string, CommitSink>();

  eventLog(sessionId: string, sink: CommitSink): EventLog {
    const kept = { appended: [] as number[], keptFrom: 1 };
    this.logs.set(sessionId, kept);
    this.sinks.set(sessionId, sink);
    return {
      commitsAtOnce: false,
      append: (seq) => {
        kept.appended.push(seq);
      },
      dropBefore: (seq) => {
        kept.keptFrom = seq;
      },
    };
  }

  /** Commits everything appended so far, session by session. */
  commit(): void {
    for (const [id, sink] of this.sinks) {
      const last = this.logs.get(id)!.appended.at(-1);
      if (last !== undefined) sink.committed(last);
    }
  }

  /** Every log fails: nothing more will be committed. */
  fail(error: Error): void {
    for (const sink of this.sinks.values()) sink.failed(error);
  }
}

import { memoryCollabStore } from '../collaboration/collab-store.js';
import type {
  CommitSink,
  EventLog,
  SessionRecord,
  SessionStore,
  StoredCursor,
  StoredSession,
} from '../store/session-store.js';

interface Kept {
  events: Map<number, Uint8Array>;
  /** Seqs appended, in order; what `commit()` commits. */
  appended: number[];
  keptFrom: number;
  committedUpTo: number;
}

/**
 * A durable store kept in memory whose commits happen when the test says:
 * `commit()` commits every append so far, `fail(error)` makes every log
 * fail. Only committed events survive a "restart" (`storedSessions`, read
 * by a new manager given the same store), as with a real store.
 */
export class HeldStore implements SessionStore {
  readonly historyId = 'held-history';
  readonly durable = true;
  readonly logs = new Map<string, Kept>();
  readonly records = new Map<string, SessionRecord>();
  readonly cursors = new Map<string, Map<string, StoredCursor>>();
  /** What `size` reports: a test sets it to make the store full. */
  sizeNow = { usedBytes: 0, maxBytes: 0 };
  readonly collab = memoryCollabStore();
  private readonly sinks = new Map<string, CommitSink>();

  eventLog(sessionId: string, sink: CommitSink, keptFrom = 1): EventLog {
    const kept: Kept = this.logs.get(sessionId) ?? {
      events: new Map(),
      appended: [],
      keptFrom,
      committedUpTo: 0,
    };
    this.logs.set(sessionId, kept);
    this.sinks.set(sessionId, sink);
    return {
      commitsAtOnce: false,
      append: (seq, bytes) => {
        kept.appended.push(seq);
        kept.events.set(seq, bytes);
      },
      dropBefore: (seq) => {
        for (let s = kept.keptFrom; s < seq; s++) kept.events.delete(s);
        kept.keptFrom = seq;
      },
    };
  }

  storedSessions(): StoredSession[] {
    return [...this.records.values()].map((record) => {
      const kept = this.logs.get(record.request.sessionId);
      const events = [...(kept?.events ?? [])]
        .filter(([seq]) => seq <= (kept?.committedUpTo ?? 0))
        .sort(([a], [b]) => a - b)
        .map(([seq, bytes]) => ({ seq, bytes }));
      return {
        record,
        events: () => events,
        cursors: [...(this.cursors.get(record.request.sessionId)?.values() ?? [])],
      };
    });
  }

  saveSession(record: SessionRecord): void {
    this.records.set(record.request.sessionId, structuredClone(record));
  }

  saveCursor(sessionId: string, cursor: StoredCursor): Promise<void> {
    const of = this.cursors.get(sessionId) ?? new Map<string, StoredCursor>();
    of.set(cursor.subscriberId, { ...cursor });
    this.cursors.set(sessionId, of);
    return Promise.resolve();
  }

  size(): { usedBytes: number; maxBytes: number } {
    return this.sizeNow;
  }

  forgetSession(sessionId: string): void {
    this.records.delete(sessionId);
    this.logs.delete(sessionId);
    this.cursors.delete(sessionId);
  }

  /** Commits everything appended so far, session by session. */
  commit(): void {
    for (const [id, sink] of this.sinks) {
      const kept = this.logs.get(id);
      const last = kept?.appended.at(-1);
      if (kept && last !== undefined && last > kept.committedUpTo) {
        kept.committedUpTo = last;
        sink.committed(last);
      }
    }
  }

  /** Every log fails: nothing more will be committed. */
  fail(error: Error): void {
    for (const sink of this.sinks.values()) sink.failed(error);
  }
}

import type { CollabStore } from '../collaboration/collab-store.js';
import type { SessionFacts, SessionStatus, StartRequest } from '../types.js';

/**
 * Where a daemon's sessions are kept, so they can outlive its process. The
 * core writes each session's events through it, encoded once (the ring's
 * EventCodec bytes), and lets readers see an event only once the store has
 * committed it: no reader ever sees a seq that a restart could hand to
 * another event. Two implementations: memory (`memoryStore`: nothing
 * outlives the process, every append is committed at once) and the daemon's
 * embedded database.
 */
export interface SessionStore {
  /**
   * The history this store holds: its events and cursors mean the same
   * thing for as long as it stays the same. New when the store is new (or
   * was wiped); for the memory store, new with every process.
   */
  readonly historyId: string;
  /** Whether what it holds outlives the process. */
  readonly durable: boolean;
  /**
   * The event log of one session; `sink` hears when its appends are
   * committed. `keptFrom` is the oldest seq it holds (a restored session's).
   */
  eventLog(sessionId: string, sink: CommitSink, keptFrom?: number): EventLog;
  /** Every session kept, for the daemon's start (none for the memory store). */
  storedSessions(): Iterable<StoredSession>;
  /** Keeps what a session is (at start and at each change of status). */
  saveSession(record: SessionRecord): void;
  /** Keeps a subscriber's acknowledged position; resolves once committed. */
  saveCursor(sessionId: string, cursor: StoredCursor): Promise<void>;
  /** Forgets a session: its record, events and cursors (an ended one past retention, a failed start). */
  forgetSession(sessionId: string): void;
  /**
   * Bytes its data takes now (it drops as events and sessions go) and the
   * most it may take (`storage.max_size`; 0 for no bound). At the bound no
   * session is started; running ones go on, each within its own bounds.
   */
  size(): { usedBytes: number; maxBytes: number };
  /** The projects' context bus and messages, kept with the sessions. */
  readonly collab: CollabStore;
}

/** What a store keeps of a session beside its events: enough to serve it after a restart. */
export interface SessionRecord {
  request: StartRequest;
  repoPath: string;
  status: SessionStatus;
  createdAt: number;
  facts: SessionFacts;
}

/** A subscriber's acknowledged position, as kept. */
export interface StoredCursor {
  subscriberId: string;
  ackSeq: number;
  touchedAt: number;
}

/** A session as a store gives it back at the daemon's start. */
export interface StoredSession {
  record: SessionRecord;
  /** Its events as kept, oldest first. */
  events(): Iterable<{ seq: number; bytes: Uint8Array }>;
  cursors: StoredCursor[];
}

/** What a session's event log tells its session. */
export interface CommitSink {
  /** Every event up to `seq` is committed: readers may see it. In seq order. */
  committed(seq: number): void;
  /**
   * The store could not commit the events after the last `committed` and
   * never will: the session cannot go on recording, and ends saying why.
   */
  failed(error: Error): void;
}

/** The events of one session, as the store keeps them. */
export interface EventLog {
  /**
   * True when every append is committed before `append` returns (the
   * memory store): the caller then need not keep its own copy meanwhile.
   */
  readonly commitsAtOnce: boolean;
  /**
   * Stores event `seq` (one after the previous append), as encoded. A log
   * that commits later keeps `bytes` until then: the caller hands them
   * over and does not reuse them (one that commits at once is done with
   * them when `append` returns).
   */
  append(seq: number, bytes: Uint8Array): void;
  /** Events before `seq` are no longer kept: the ring's bounds, kept on disk too. */
  dropBefore(seq: number): void;
}

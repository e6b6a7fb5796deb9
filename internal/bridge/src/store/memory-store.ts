import { randomUUID } from 'node:crypto';
import { memoryCollabStore } from '../collaboration/collab-store.js';
import type { CommitSink, EventLog, SessionStore } from './session-store.js';

/**
 * A store that keeps nothing: the rings are the only copy, so every append
 * is committed as it is made, and the history begins anew with the
 * process (`historyId` is new each time unless given).
 */
export function memoryStore(historyId: string = randomUUID()): SessionStore {
  return {
    historyId,
    durable: false,
    eventLog: (_sessionId: string, sink: CommitSink): EventLog => ({
      commitsAtOnce: true,
      append: (seq) => sink.committed(seq),
      dropBefore: () => undefined,
    }),
    storedSessions: () => [],
    saveSession: () => undefined,
    saveCursor: () => Promise.resolve(),
    forgetSession: () => undefined,
    // The rings are the data: bounded by the session limits, not by a store.
    size: () => ({ usedBytes: 0, maxBytes: 0 }),
    collab: memoryCollabStore(),
  };
}

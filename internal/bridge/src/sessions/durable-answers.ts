import { unavailable } from '../errors.js';
import type { SessionStore, StoredCursor } from '../store/session-store.js';
import type { Session } from './session.js';

/**
 * `seq`, once the session store has committed it: a seq a caller is told
 * is never given to another event by a restart.
 */
export async function committed(s: Session, seq: number): Promise<number> {
  try {
    await s.log.whenCommitted(seq);
  } catch (err) {
    throw unavailable(
      `event ${seq} of session ${s.id} was not kept: the session store failed (${(err as Error).message})`,
      'store_failed',
      { cause: err },
    );
  }
  return seq;
}

/**
 * `cursor`, once the session store has kept it: an acknowledged position
 * survives a restart, so AckEvents answers only after this.
 */
export async function keptCursor(
  store: SessionStore,
  sessionId: string,
  cursor: StoredCursor,
): Promise<number> {
  try {
    await store.saveCursor(sessionId, cursor);
  } catch (err) {
    throw unavailable(
      `the cursor of ${cursor.subscriberId} was not kept: the session store failed (${(err as Error).message})`,
      'store_failed',
      { cause: err },
    );
  }
  return cursor.ackSeq;
}

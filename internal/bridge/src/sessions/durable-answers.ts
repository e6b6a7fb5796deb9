import { precondition, unavailable } from '../errors.js';
import type { SessionStore, StoredCursor } from '../store/session-store.js';
import { preview } from '../validate.js';
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

/**
 * An ack names the history its events were read from ('' for none): one of
 * another history (a restart with a new or wiped store came between the
 * read and the ack) must not move a cursor of this one, whose seqs mean
 * other events.
 */
export function checkAckHistory(acked: string, current: string): void {
  if (acked !== '' && acked !== current) {
    throw precondition(
      `history_id ${preview(acked)} is not this daemon's history ${current}: the acknowledged events were read before its session store was new or wiped (or from another daemon), so no cursor was moved`,
      'ack_of_other_history',
    );
  }
}

import { notFound } from '../errors.js';
import type { Caller } from '../types.js';
import { checkSessionId } from '../validate.js';
import type { Session } from './session.js';

/**
 * The daemon's sessions by id, and how a caller finds one of them. A
 * session taken out is forgotten by the store too (`forget`), so what the
 * store gives back after a restart is what the table held.
 */
export class SessionTable {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly forget: (sessionId: string) => void = () => undefined) {}

  get(sessionId: string): Session | undefined {
    return this.byId.get(sessionId);
  }

  values(): IterableIterator<Session> {
    return this.byId.values();
  }

  add(session: Session): void {
    this.byId.set(session.id, session);
  }

  /** Takes `session` out if it is still the one under its id (a failed start). */
  remove(session: Session): void {
    if (this.byId.get(session.id) !== session) return;
    this.byId.delete(session.id);
    this.forget(session.id);
  }

  /** Forgets an ended session (past its retention): its events and cursors go with it. */
  evict(session: Session): void {
    if (session.live)
      throw new Error(`session ${session.id} is live: only an ended one is evicted`);
    this.remove(session);
  }

  /** Looks a session up for `caller`; another project's session is "not found". */
  find(caller: Caller, sessionId: string): Session {
    checkSessionId(sessionId);
    const s = this.byId.get(sessionId);
    if (!s) throw notFound(sessionId);
    // The caller cannot tell this from a missing session; the audit record can.
    if (s.projectId !== caller.projectId) throw notFound(sessionId, 'session_of_other_project');
    return s;
  }
}

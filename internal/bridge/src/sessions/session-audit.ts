import type { Audit, AuditIdentity } from '../audit.js';
import type { BridgeEvent } from '../events/event.js';
import type { Caller } from '../types.js';

const AUDITED = new Set<BridgeEvent['type']>([
  'SESSION_STARTED',
  'SESSION_STOPPED',
  'SESSION_FAILED',
]);

/**
 * The audit records a session's own events imply: its agent started, and
 * it stopped or failed (with why). Permission decisions are audited by the
 * session's PermissionGate, which knows who decided. Everything else is not
 * audited.
 */
export function auditEvent(audit: Audit, ev: BridgeEvent, startedBy?: AuditIdentity): void {
  // Called for every stored event: the common one costs a comparison.
  if (!AUDITED.has(ev.type)) return;
  const base = {
    sessionId: ev.sessionId,
    projectId: ev.projectId,
    ...(startedBy ? { identity: startedBy } : {}),
  };
  const data = ev.data ?? {};
  switch (ev.type) {
    case 'SESSION_STARTED':
      audit({ kind: 'session', outcome: 'ok', reason: 'session_started', ...base });
      return;
    case 'SESSION_STOPPED':
      audit({
        kind: 'session',
        outcome: 'ok',
        reason: 'session_stopped',
        detail: typeof data.reason === 'string' ? data.reason : '',
        ...base,
      });
      return;
    case 'SESSION_FAILED':
      audit({
        kind: 'session',
        outcome: 'error',
        reason: 'session_failed',
        detail: typeof data.reason === 'string' ? data.reason : ev.error,
        ...base,
      });
      return;
    default:
      return;
  }
}

/** A client asked to stop (or kill) a live session: who, before the stop's own record. */
export function auditStopRequest(
  audit: Audit,
  s: { id: string; projectId: string },
  caller: Caller,
  force: boolean,
): void {
  audit({
    kind: 'session',
    outcome: 'ok',
    reason: force ? 'session_kill_requested' : 'session_stop_requested',
    sessionId: s.id,
    projectId: s.projectId,
    ...(caller.identity ? { identity: caller.identity } : {}),
  });
}

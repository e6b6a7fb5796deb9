import type { Audit, AuditIdentity } from '../audit.js';
import type { BridgeEvent } from '../events/event.js';

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

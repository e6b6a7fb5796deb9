import { BridgeError, precondition } from '../errors.js';
import type { SessionSnapshot, StartRequest } from '../types.js';
import type { Session } from './session.js';
import type { SessionTable } from './session-table.js';

/**
 * True when two start requests ask for the same session: project,
 * provider, repository, name, role and every agent option alike (in any
 * order). An idempotent retry must match; anything else under the same id
 * is refused.
 */
function sameStart(a: StartRequest, b: StartRequest): boolean {
  if (a.projectId !== b.projectId || a.provider !== b.provider || a.repoPath !== b.repoPath) {
    return false;
  }
  if ((a.name ?? '') !== (b.name ?? '') || (a.role ?? '') !== (b.role ?? '')) return false;
  const ka = Object.keys(a.agentOpts).sort();
  const kb = Object.keys(b.agentOpts).sort();
  return (
    ka.length === kb.length && ka.every((k, i) => k === kb[i] && a.agentOpts[k] === b.agentOpts[k])
  );
}

/**
 * A start of a session id already in `table`: the same start (an
 * idempotent retry) gets that session once its start-up has settled, or
 * FAILED_PRECONDITION when the start-up failed; another start is refused.
 */
export async function retryStart(
  existing: Session,
  req: StartRequest,
  table: SessionTable,
): Promise<SessionSnapshot> {
  if (!sameStart(existing.request, req)) {
    throw new BridgeError(
      'already_exists',
      `session ${req.sessionId} already exists with different parameters`,
      'session_id_in_use',
    );
  }
  await existing.startup.settled();
  if (table.get(req.sessionId) !== existing) {
    throw precondition(`session ${req.sessionId} could not be started`, 'start_failed');
  }
  return existing.snapshot();
}

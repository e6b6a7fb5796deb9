import { exhausted } from '../errors.js';
import type { Session } from '../sessions/session.js';
import type { CoreSettings } from '../types.js';
import { preview } from '../validate.js';

/**
 * Refuses one more live session for `projectId` when the project or the
 * daemon is at its limit. Synchronous, so a caller that checks and inserts
 * without awaiting in between cannot be overtaken by a concurrent start.
 */
export function checkLimits(
  sessions: Iterable<Session>,
  projectId: string,
  { maxPerProject, maxGlobal }: Pick<CoreSettings, 'maxPerProject' | 'maxGlobal'>,
): void {
  let global = 0;
  let project = 0;
  for (const s of sessions) {
    if (!s.live) continue;
    global++;
    if (s.projectId === projectId) project++;
  }
  if (project >= maxPerProject) {
    throw exhausted(
      `project ${preview(projectId)} already has ${project} live sessions (limit ${maxPerProject})`,
      'project_session_limit',
    );
  }
  if (global >= maxGlobal) {
    throw exhausted(
      `the daemon already runs ${global} sessions (limit ${maxGlobal})`,
      'global_session_limit',
    );
  }
}

import { BridgeError, exhausted } from '../errors.js';
import type { Session } from '../sessions/session.js';
import type { SessionStore } from '../store/session-store.js';
import type { CoreSettings, StartRequest } from '../types.js';
import { preview } from '../validate.js';

/**
 * Refuses one more live session for `req`'s project when the project or
 * the daemon is at its limit, the session store holds as much as it may,
 * or a live session of the project holds the name it asks for.
 * Synchronous, so a caller that checks and inserts without awaiting in
 * between cannot be overtaken by a concurrent start.
 */
export function checkLimits(
  sessions: Iterable<Session>,
  { projectId, name = '' }: Pick<StartRequest, 'projectId' | 'name'>,
  { maxPerProject, maxGlobal }: Pick<CoreSettings, 'maxPerProject' | 'maxGlobal'>,
  store: Pick<SessionStore, 'size'>,
): void {
  const { usedBytes, maxBytes } = store.size();
  if (maxBytes > 0 && usedBytes >= maxBytes) {
    throw exhausted(
      `the session store is full: its data takes ${mib(usedBytes)} of storage.max_size ${mib(maxBytes)}; ended sessions leave it after sessions.retention (or raise storage.max_size)`,
      'store_full',
    );
  }
  let global = 0;
  let project = 0;
  for (const s of sessions) {
    if (!s.live) continue;
    global++;
    if (s.projectId !== projectId) continue;
    project++;
    if (name !== '' && s.request.name === name) {
      throw new BridgeError(
        'already_exists',
        `the name ${preview(name)} is held by live session ${s.id} of this project; a name is free again once its session has ended`,
        'session_name_in_use',
      );
    }
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

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

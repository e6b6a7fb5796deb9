import type { CoreSettings, SessionCensus, SessionCounts } from '../types.js';
import type { Session } from './session.js';

/** Sessions by state, for the daemon and for `projectId`, with the limits that apply. */
export function countSessions(
  sessions: Iterable<Session>,
  projectId: string,
  settings: CoreSettings,
): SessionCounts {
  let active = 0;
  let retained = 0;
  let projectActive = 0;
  for (const s of sessions) {
    if (!s.live) retained++;
    else {
      active++;
      if (s.projectId === projectId) projectActive++;
    }
  }
  const { maxGlobal, maxPerProject } = settings;
  return { active, retained, limit: maxGlobal, projectActive, projectLimit: maxPerProject };
}

/**
 * Sessions grouped by provider and status, with their open readers and
 * waiting permission requests: what the daemon reports as gauges. One pass
 * over the sessions, made when asked.
 */
export function census(sessions: Iterable<Session>): SessionCensus[] {
  const groups = new Map<string, SessionCensus>();
  for (const s of sessions) {
    const snap = { provider: s.request.provider, status: s.status };
    const key = `${snap.provider}\u0000${snap.status}`;
    const g = groups.get(key) ?? { ...snap, sessions: 0, subscribers: 0, permissionsWaiting: 0 };
    g.sessions++;
    g.subscribers += s.readers.count;
    g.permissionsWaiting += s.permissions.waiting;
    groups.set(key, g);
  }
  return [...groups.values()];
}

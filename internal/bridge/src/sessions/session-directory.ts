import type { AgentEvent } from '@agent-bridge/providers';
import { noAudit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import type { SessionsView } from '../collaboration/collab-ports.js';
import type { Member } from '../collaboration/collab-types.js';
import { COLLAB_RATE, Collaboration } from '../collaboration/collaboration.js';
import type { SessionStore } from '../store/session-store.js';
import { sendInput } from './send-input.js';
import type { Session } from './session.js';
import type { SessionManagerDeps } from './session-manager-deps.js';
import type { SessionTable } from './session-table.js';

/** A live session as the project's other sessions see it (`who`). */
const memberOf = (s: Session): Member => ({
  sessionId: s.id,
  name: s.request.name ?? '',
  role: s.request.role ?? '',
  provider: s.request.provider,
  repoPath: s.repoPath,
  status: s.status,
  lastActivityAt: s.readers.lastActivity,
});

/**
 * The session table as collaboration sees it: a project's live sessions,
 * events recorded on a live one, input given to a running one.
 */
function sessionDirectory(
  table: SessionTable,
  maxInputBytes: number,
  elsewhere?: (projectId: string) => Member[],
): SessionsView {
  const live = (id: string) => {
    const s = table.get(id);
    return s?.live ? s : undefined;
  };
  return {
    members: (projectId) => {
      const here = [...table.values()]
        .filter((s) => s.live && s.projectId === projectId)
        .map(memberOf);
      // In a fleet, the project's live sessions on the other daemons too.
      const there = elsewhere?.(projectId).filter((m) => !table.get(m.sessionId)) ?? [];
      return [...here, ...there];
    },
    isHere: (sessionId) => table.get(sessionId) !== undefined,
    record: (sessionId: string, ev: AgentEvent) => {
      live(sessionId)?.record(ev);
    },
    deliver: (sessionId, text, key) => {
      const s = live(sessionId);
      if (s?.status !== 'RUNNING') return false;
      try {
        sendInput(s, text, key, maxInputBytes);
        return true;
      } catch {
        // Not taking input now (closed, or the message is over input.max_size_bytes): it stays unread in the inbox.
        return false;
      }
    },
  };
}

/** The daemon's collaboration over its session table, kept in its store. */
export function collaborationOf(
  table: SessionTable,
  store: SessionStore,
  clock: Clock,
  timers: Timers,
  deps: SessionManagerDeps,
): Collaboration {
  return new Collaboration({
    store: store.collab,
    clock,
    timers,
    audit: deps.audit ?? noAudit,
    sessions: sessionDirectory(table, deps.settings.maxInputBytes, (projectId) =>
      deps.collabRelay ? deps.collabRelay.members(projectId) : [],
    ),
    rate: deps.collabRate ?? COLLAB_RATE,
    toolServers: deps.toolServers,
    wantsTools: deps.settings.collaboration,
    relay: deps.collabRelay,
  });
}

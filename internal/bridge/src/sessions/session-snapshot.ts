import type { EventRing } from '../events/event-ring.js';
import {
  isLiveStatus,
  type SessionFacts,
  type SessionSnapshot,
  type SessionStatus,
  type StartRequest,
} from '../types.js';

/** What a snapshot reads of a session (a Session is one). */
export interface SnapshotSource {
  readonly id: string;
  readonly projectId: string;
  readonly request: StartRequest;
  readonly status: SessionStatus;
  readonly createdAt: number;
  readonly repoPath: string;
  readonly ring: EventRing;
  readonly readers: { readonly count: number };
}

/**
 * A session as GetSession and ListSessions report it: as committed. Its
 * end is reported once its terminal event is committed (until then it is
 * STOPPING), so a caller told it ended finds every event up to the end
 * within `last_seq`.
 */
export function snapshotOf(s: SnapshotSource, facts: Readonly<SessionFacts>): SessionSnapshot {
  const ending = endNotCommitted(s);
  return {
    sessionId: s.id,
    projectId: s.projectId,
    provider: s.request.provider,
    status: ending ? 'STOPPING' : s.status,
    createdAt: new Date(s.createdAt),
    stoppedAt: ending || facts.endedAt === undefined ? undefined : new Date(facts.endedAt),
    error: facts.error,
    pid: facts.pid,
    exitCode: facts.exitCode,
    exitSignal: facts.exitSignal,
    repoPath: s.repoPath,
    oldestSeq: s.ring.oldestSeq,
    lastSeq: s.ring.lastSeq,
    subscriberCount: s.readers.count,
    name: s.request.name ?? '',
    role: s.request.role ?? '',
  };
}

const endNotCommitted = (s: Pick<SnapshotSource, 'status' | 'ring'>) =>
  !isLiveStatus(s.status) && !s.ring.complete;

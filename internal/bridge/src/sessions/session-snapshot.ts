import type { SessionSnapshot } from '../types.js';
import type { Session } from './session.js';

/** What a session learns of its agent's process and its own end, as it goes. */
export interface SessionFacts {
  pid: number;
  error: string;
  exitCode?: number | undefined;
  exitSignal: string;
  /** When the terminal event was recorded. */
  endedAt?: number | undefined;
}

/** A session as GetSession and ListSessions report it. */
export function snapshotOf(s: Session, facts: Readonly<SessionFacts>): SessionSnapshot {
  return {
    sessionId: s.id,
    projectId: s.projectId,
    provider: s.request.provider,
    status: s.status,
    createdAt: new Date(s.createdAt),
    stoppedAt: facts.endedAt === undefined ? undefined : new Date(facts.endedAt),
    error: facts.error,
    pid: facts.pid,
    exitCode: facts.exitCode,
    exitSignal: facts.exitSignal,
    repoPath: s.repoPath,
    oldestSeq: s.ring.oldestSeq,
    lastSeq: s.ring.lastSeq,
    subscriberCount: s.readers.count,
  };
}

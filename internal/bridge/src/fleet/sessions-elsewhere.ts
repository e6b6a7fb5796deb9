import type { SessionFacts, SessionStatus, StartRequest } from '../types.js';

/**
 * The sessions of the daemon's fleet that it does not hold itself, as the
 * fleet keeps them (issue 26: NATS JetStream). The core serves the history
 * of one whose daemon is gone, read-only; the fleet's implementation lives
 * outside the core, which knows nothing of NATS.
 */
export interface SessionsElsewhere {
  /** A session of another daemon of the fleet; undefined when the fleet does not know it. */
  find(sessionId: string, signal: AbortSignal): Promise<SessionElsewhere | undefined>;
  /** The fleet's sessions of a project whose daemon is gone. */
  lost(projectId: string, signal: AbortSignal): Promise<SessionElsewhere[]>;
}

/** Where a session lives in the fleet. */
export interface SessionHome {
  daemonId: string;
  address: string;
  /** The history its seqs and cursors belong to (its daemon's store). */
  historyId: string;
  /** Whether its daemon is in the fleet now; false: it left (crashed, cut off, stopped). */
  live: boolean;
}

/** A session of another daemon, as the fleet keeps it. */
export interface SessionElsewhere {
  sessionId: string;
  projectId: string;
  home: SessionHome;
  /** What its daemon last recorded of it. */
  request: StartRequest;
  repoPath: string;
  status: SessionStatus;
  createdAt: number;
  facts: SessionFacts;
  /** The seq of its last event the fleet holds (0: none). */
  lastSeq: number;
  /** Its events after `afterSeq` the fleet holds, in order; throws rather than end early. */
  events(afterSeq: number, signal: AbortSignal): AsyncIterable<{ seq: number; bytes: Uint8Array }>;
  /** A subscriber's acknowledged position, as its daemon last recorded it. */
  cursor(subscriberId: string, signal: AbortSignal): Promise<number | undefined>;
  /** Records a subscriber's acknowledged position. */
  saveCursor(subscriberId: string, ackSeq: number, signal: AbortSignal): Promise<void>;
}

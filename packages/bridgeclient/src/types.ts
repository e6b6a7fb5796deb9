/**
 * Plain types of the client, converted from the generated contract. Seqs
 * are `number`s: the daemon numbers each session's events from 1 without
 * gaps, so they stay far below Number.MAX_SAFE_INTEGER (2^53 - 1); the
 * client converts them to and from the wire's uint64 and refuses a seq
 * that is not a safe non-negative integer. Times are `Date`s.
 */

export type SessionStatus = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'FAILED';

/** What an event records (the contract's EVENT_TYPE_* names without the prefix). */
export type EventType =
  | 'SESSION_STARTED'
  | 'SESSION_STOPPED'
  | 'SESSION_FAILED'
  | 'STDOUT'
  | 'STDERR'
  | 'INPUT_RECEIVED'
  | 'BUFFER_OVERFLOW'
  | 'TURN_STARTED'
  | 'AGENT_MESSAGE_DELTA'
  | 'AGENT_MESSAGE'
  | 'TOOL_CALL'
  | 'TOOL_RESULT'
  | 'TURN_COMPLETED'
  | 'AGENT_ERROR';

/** One recorded event of a session. */
export interface SessionEvent {
  /** Per session, from 1, no gaps. For BUFFER_OVERFLOW, the last missing seq. */
  seq: number;
  timestamp: Date;
  sessionId: string;
  projectId: string;
  provider: string;
  type: EventType;
  /** "system", "stdout" or "stderr". */
  stream: string;
  text: string;
  /** True on events that end something: the terminal session events and TURN_COMPLETED. */
  done: boolean;
  error: string;
  /** The turn an agent-level event belongs to; empty otherwise. */
  turnId: string;
  /** Structured payload; its keys depend on `type`. */
  data: Record<string, unknown> | undefined;
  /** For BUFFER_OVERFLOW: the seqs that were evicted before this reader got them. */
  missing?: { first: number; last: number };
}

/** True for the event that ends a session's stream. */
export const isTerminal = (e: Pick<SessionEvent, 'type'>): boolean =>
  e.type === 'SESSION_STOPPED' || e.type === 'SESSION_FAILED';

export interface StartedSession {
  sessionId: string;
  /** RUNNING, or FAILED when the agent died or timed out during start-up. */
  status: SessionStatus;
  createdAt: Date;
}

/** A session as GetSession and ListSessions describe it. */
export interface SessionInfo {
  sessionId: string;
  projectId: string;
  provider: string;
  status: SessionStatus;
  createdAt: Date;
  stoppedAt: Date | undefined;
  /** Why the session failed; empty unless FAILED. */
  error: string;
  pid: number;
  exitCode: number | undefined;
  exitSignal: string;
  repoPath: string;
  /** Oldest seq still held by the daemon; 0 when none. */
  oldestSeq: number;
  /** Seq of the newest event; 0 when none. */
  lastSeq: number;
  subscriberCount: number;
}

export interface SessionPage {
  sessions: SessionInfo[];
  /** Empty on the last page. */
  nextPageToken: string;
}

export interface SentInput {
  /** Seq of the INPUT_RECEIVED event that records the input. */
  seq: number;
  /** The key the input was sent with (generated when none was given): resending with it is safe. */
  idempotencyKey: string;
}

export interface InterruptResult {
  /** True only when the turn ended because of this interrupt. */
  interrupted: boolean;
  /** The turn the interrupt was for; empty when none was running. */
  turnId: string;
}

export interface Health {
  /** "serving", or "not_serving" while the daemon shuts down. */
  status: string;
  version: string;
  /** Changes at every daemon start: sessions, events and cursors from before are gone. */
  serverInstanceId: string;
  startedAt: Date | undefined;
  providers: { provider: string; available: boolean; error: string }[];
  activeSessions: number;
  retainedSessions: number;
  sessionLimit: number;
  projectActiveSessions: number;
  projectSessionLimit: number;
  /** Room for more sessions of this client's project: the smaller of what either limit leaves. */
  freeCapacity: number;
}

export type ProviderAuthState =
  | 'UNSPECIFIED'
  | 'UNKNOWN'
  | 'AUTHENTICATED'
  | 'UNAUTHENTICATED'
  | 'NOT_REQUIRED';

export interface ProviderInfo {
  id: string;
  binaryPath: string;
  version: string;
  available: boolean;
  error: string;
  capabilities: {
    structuredEvents: boolean;
    multiTurn: boolean;
    interrupt: boolean;
    permissionRequests: boolean;
  };
  authState: ProviderAuthState;
  authDetail: string;
  checkedAt: Date | undefined;
}

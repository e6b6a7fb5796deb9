import type { PermissionDecision, ResumePoint } from '@agent-bridge/providers';
import type { AuditIdentity } from './audit.js';
import type { PermissionPolicy } from './permissions/permission-policy.js';

/** Who is calling, as established by authentication. */
export interface Caller {
  projectId: string;
  subject: string;
  /** The transport's and the token's view of the caller, copied into audit records. */
  identity?: AuditIdentity;
}

export type SessionStatus = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'FAILED';

/** A read-only view of a session (the proto's GetSessionResponse). */
export interface SessionSnapshot {
  sessionId: string;
  projectId: string;
  provider: string;
  status: SessionStatus;
  createdAt: Date;
  stoppedAt: Date | undefined;
  error: string;
  pid: number;
  exitCode: number | undefined;
  exitSignal: string;
  repoPath: string;
  oldestSeq: number;
  lastSeq: number;
  subscriberCount: number;
  /** '' when the session has none. */
  name: string;
  role: string;
}

/** What a session learns of its agent's process and its own end, as it goes. */
/** Starting, running or stopping: an agent is (or may be) there. */
export const isLiveStatus = (s: SessionStatus): boolean =>
  s === 'STARTING' || s === 'RUNNING' || s === 'STOPPING';

export interface SessionFacts {
  pid: number;
  error: string;
  exitCode?: number | undefined;
  exitSignal: string;
  /** When the terminal event was recorded. */
  endedAt?: number | undefined;
  /** Where the agent's conversation can be taken up after a daemon restart. */
  resumePoint?: ResumePoint | undefined;
  /** The turn running now (TURN_STARTED recorded, its TURN_COMPLETED not yet). */
  runningTurn?: string | undefined;
  /** Permission requests waiting for their answer, with the default a restart applies. */
  waitingRequests?: WaitingRequest[] | undefined;
  /**
   * The latest input idempotency keys with the seq each was accepted with,
   * so a SendInput retried across a daemon restart is not delivered twice.
   */
  inputKeys?: [key: string, seq: number][] | undefined;
}

/** A permission request still waiting, as a restart must resolve it. */
interface WaitingRequest {
  requestId: string;
  tool: string;
  fallback: string;
  turnId: string;
}

/** A client's answer to a permission request (RespondPermission). */
export interface PermissionAnswer {
  sessionId: string;
  requestId: string;
  decision: PermissionDecision;
  reason: string;
}

export interface StartRequest {
  projectId: string;
  sessionId: string;
  repoPath: string;
  provider: string;
  agentOpts: Record<string, string>;
  /** How the project's people and sessions address it; '' or absent: unnamed (see checkSessionName). */
  name?: string;
  /** What it does; '' or absent: none. */
  role?: string;
}

/** Live (starting, running, stopping) and retained sessions, and the limits on live ones. */
export interface SessionCounts {
  active: number;
  retained: number;
  /** The daemon's limit on live sessions. */
  limit: number;
  /** Live sessions of the project asked about. */
  projectActive: number;
  /** The limit on live sessions per project. */
  projectLimit: number;
}

/** Sessions of one provider in one status, and the readers they have open. */
export interface SessionCensus {
  provider: string;
  status: SessionStatus;
  sessions: number;
  subscribers: number;
  /** Permission requests of these sessions waiting for an answer. */
  permissionsWaiting: number;
}

/** Settings of the core, from the daemon's configuration. Durations in ms, sizes in bytes. */
export interface CoreSettings {
  // How much may run at once.
  /** Live sessions of one project. */
  maxPerProject: number;
  /** Live sessions of the daemon. */
  maxGlobal: number;
  /** Open streams per session, and acknowledged cursors kept per session. */
  maxSubscribers: number;
  /** One SendInput's text. */
  maxInputBytes: number;
  /** Repository paths sessions may run in (per-segment globs). */
  allowedPaths: string[];

  // What a session keeps.
  /** Events held per session: by count... */
  eventBufferSize: number;
  /** ...and by bytes; the oldest are evicted first. */
  eventBufferBytes: number;

  // When things end.
  /** Per provider: how long start-up may take. */
  startupTimeoutMs: (providerId: string) => number;
  /** A running session with no input, output or reader for this long is stopped; 0 = never. */
  idleTimeoutMs: number;
  /** How long a stopping agent gets before it is killed. */
  stopGracePeriodMs: number;
  /** How long an ended session stays readable. */
  retentionMs: number;
  /** How long a cursor lives with no ack and no open stream. */
  subscriberTtlMs: number;

  // Who decides.
  /** Per provider: how the agent's permission requests are decided. */
  permissionPolicy: (providerId: string) => PermissionPolicy;
  /** Per provider: whether a session live at a daemon restart resumes its agent's conversation. */
  resume: (providerId: string) => boolean;
  /** Per provider: whether its agents get the collaboration tools; absent: every one does. */
  collaboration?: (providerId: string) => boolean;
}

/** The subset of pino's API the core uses. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

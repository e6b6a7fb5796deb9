/** Who is calling, as established by authentication. */
export interface Caller {
  projectId: string;
  subject: string;
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
}

export interface StartRequest {
  projectId: string;
  sessionId: string;
  repoPath: string;
  provider: string;
  agentOpts: Record<string, string>;
}

/** Settings of the core, from the daemon's configuration. Durations in ms. */
export interface CoreSettings {
  maxPerProject: number;
  maxGlobal: number;
  idleTimeoutMs: number;
  stopGracePeriodMs: number;
  eventBufferSize: number;
  eventBufferBytes: number;
  retentionMs: number;
  maxSubscribers: number;
  subscriberTtlMs: number;
  maxInputBytes: number;
  allowedPaths: string[];
  /** Per provider: how long start-up may take. */
  startupTimeoutMs: (providerId: string) => number;
}

/** The subset of pino's API the core uses. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

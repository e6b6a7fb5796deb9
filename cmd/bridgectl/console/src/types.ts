// The shapes the console's server sends: the SDK's types as JSON.

type SessionStatus = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'FAILED';

export interface SessionInfo {
  sessionId: string;
  projectId: string;
  provider: string;
  status: SessionStatus;
  createdAt: string;
  stoppedAt?: string;
  error: string;
  repoPath: string;
  lastSeq: number;
  name: string;
  role: string;
}

export interface SessionEvent {
  seq: number;
  sessionId: string;
  type: string;
  text: string;
  turnId: string;
  timestamp: string;
  data?: Record<string, unknown>;
}

interface ProviderInfo {
  id: string;
  available: boolean;
  version: string;
  error: string;
  permissionPolicy: { mode: string; timeoutMs: number; defaultDecision: string };
}

interface Health {
  status: string;
  version: string;
  serverInstanceId: string;
  startedAt?: string;
  activeSessions: number;
  sessionLimit: number;
  retainedSessions: number;
  projectActiveSessions: number;
  projectSessionLimit: number;
  freeCapacity: number;
  providers: { provider: string; available: boolean; error: string; warning: string }[];
}

export interface Overview {
  target: string;
  projectId: string;
  health: Health;
  providers: ProviderInfo[];
  /** Every session of the project the daemon holds, counted by status. */
  byState: Record<string, number>;
}

export interface Approval {
  sessionId: string;
  sessionName: string;
  provider: string;
  requestId: string;
  tool: string;
  summary: string;
  input: unknown;
  options: string[];
  fallback?: string;
  expiresAt: number;
}

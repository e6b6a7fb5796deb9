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
  /** With a fleet: the daemon it lives on. */
  daemon?: string;
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

export interface DaemonView {
  name: string;
  reachable: boolean;
  error?: string;
  health?: Health;
  providers?: ProviderInfo[];
  byState?: Record<string, number>;
}

export interface Overview {
  /** The daemon's address, or the fleet's name. */
  target: string;
  fleet: boolean;
  /** The console's own project (the first of `projects`). */
  projectId: string;
  daemons: DaemonView[];
  /** Every session of each project the daemons that answered hold, counted by status. */
  projects: { projectId: string; byState: Record<string, number> }[];
}

/** The providers any daemon that answered offers, each once. */
export function providersOf(o: Overview | undefined): string[] {
  const ids = new Set<string>();
  for (const d of o?.daemons ?? []) for (const p of d.providers ?? []) ids.add(p.id);
  return [...ids].sort();
}

export interface Approval {
  sessionId: string;
  sessionName: string;
  projectId: string;
  provider: string;
  requestId: string;
  tool: string;
  summary: string;
  input: unknown;
  options: string[];
  fallback?: string;
  expiresAt: number;
}

import type { PermissionDecision, PermissionRequest } from './permissions.js';
import type { SessionEvent } from './types.js';

/**
 * How runTask answers permission requests that wait: one decision for all,
 * or a function of the request; a function that returns undefined leaves
 * that request to the daemon (another client, or its timeout and default).
 */
export type TaskPermissions =
  | PermissionDecision
  | ((
      request: PermissionRequest,
    ) => PermissionDecision | undefined | Promise<PermissionDecision | undefined>);

/** One task: a prompt for a fresh session of `provider` in `repoPath`. */
export interface TaskOptions {
  provider: string;
  /** Absolute path of the repository on the daemon's host, inside its allowed paths. */
  repoPath: string;
  /** The input the agent gets: one turn. */
  prompt: string;
  /** The task halts (and its session is stopped) this long after it began. Default: no limit. */
  timeoutMs?: number;
  /**
   * Answers to the agent's permission requests that wait for one (provider
   * `permissions: ask`). Absent: they are left to the daemon (another
   * client, or its timeout and default).
   */
  permissions?: TaskPermissions;
  /** Aborting ends the task as ABORTED: its session is stopped and what was seen is reported. */
  signal?: AbortSignal;
  /** Provider options from its allowlist, e.g. `{ model: "..." }`. */
  agentOpts?: Record<string, string>;
  /** The session's name and role (see StartSessionRequest). */
  name?: string;
  role?: string;
  /** Called with each of the session's events, in order, before runTask looks at it. */
  onEvent?: (event: SessionEvent) => void | Promise<void>;
}

import type { CallOptions } from './options.js';
import type { SessionStatus } from './types.js';

export interface StartSessionRequest {
  /** The provider's id, as ListProviders names it ("claude", "codex", "mock", ...). */
  provider: string;
  /** Absolute path of the repository on the daemon's host, inside its allowed paths. */
  repoPath: string;
  /** A lowercase UUID; generated when not given. Repeating a start with the same id is safe. */
  sessionId?: string;
  /** Provider options from its allowlist, e.g. `{ model: "..." }`. */
  agentOpts?: Record<string, string>;
  /**
   * How people and the project's other sessions address this one: 1-64 of
   * A-Z a-z 0-9 . _ -, not a UUID, unique among the project's live sessions
   * (a name in use is ALREADY_EXISTS).
   */
  name?: string;
  /** What the session does, e.g. "reviewer"; any number of sessions may share one. */
  role?: string;
}

export interface ListSessionsOptions extends CallOptions {
  /** Only sessions in one of these statuses. */
  statuses?: SessionStatus[];
  /** Sessions per page: up to 1000, default 100. */
  pageSize?: number;
  /** `nextPageToken` of the previous page, with the same filter. */
  pageToken?: string;
}

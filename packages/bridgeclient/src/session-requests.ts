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
}

export interface ListSessionsOptions extends CallOptions {
  /** Only sessions in one of these statuses. */
  statuses?: SessionStatus[];
  /** Sessions per page: up to 1000, default 100. */
  pageSize?: number;
  /** `nextPageToken` of the previous page, with the same filter. */
  pageToken?: string;
}

import type { SessionStore } from '../store/session-store.js';
import type { CoreSettings } from '../types.js';
import { whyNotResumable } from './resumable.js';
import type { Session } from './session.js';

/**
 * Ends every session's agent as the daemon goes (graceful, bounded by the
 * grace period). On a durable store a running session whose agent can
 * resume is suspended: its agent ends, the session stays live in the store
 * with no terminal event, and the next start resumes it on the agent's own
 * conversation (SESSION_RESUMED), so an upgrade or a service restart ends
 * no conversation. Every other session is stopped (SESSION_STOPPED,
 * reason `shutdown`).
 */
export async function endForShutdown(
  sessions: Iterable<Session>,
  store: Pick<SessionStore, 'durable'>,
  settings: Pick<CoreSettings, 'resume'>,
): Promise<void> {
  await Promise.all(
    [...sessions].map((s) => {
      const resumable =
        store.durable && whyNotResumable(s.provider, settings, s.kept.resumePoint) === undefined;
      return (resumable ? s.suspend() : s.stop('shutdown', false)).catch(() => undefined);
    }),
  );
}

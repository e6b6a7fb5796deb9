import type { Provider } from '@agent-bridge/providers';
import type { StoredSession } from '../store/session-store.js';
import { Session, type SessionDeps } from './session.js';
import type { SessionTable } from './session-table.js';

/**
 * Puts back a session a store kept, as the daemon starts: its events
 * (same seqs, same bytes), cursors and state. A session that was live when
 * the daemon went ends now, failed with `daemon_restarted`: its agent went
 * with the daemon's process group.
 */
export function restoreSession(
  stored: StoredSession,
  deps: SessionDeps,
  table: SessionTable,
  providers: ReadonlyMap<string, Provider>,
): Session {
  const { request, repoPath } = stored.record;
  const provider = providers.get(request.provider) ?? providerGone(request.provider);
  const session = new Session(request, repoPath, provider, { ...deps, restored: stored });
  table.add(session);
  if (session.live) {
    session.fail(
      'the daemon restarted while this session was live; its agent did not survive the restart',
      { reason: 'daemon_restarted' },
    );
  }
  return session;
}

/**
 * The provider of a restored session that the configuration no longer
 * names: the session can be read, nothing can be started with it.
 */
function providerGone(id: string): Provider {
  const gone = `provider "${id}" is no longer configured`;
  return {
    id,
    capabilities: {
      structuredEvents: false,
      multiTurn: false,
      interrupt: false,
      permissionRequests: false,
    },
    validateOptions: () => undefined,
    start: () => Promise.reject(new Error(gone)),
    health: () =>
      Promise.resolve({
        available: false,
        error: gone,
        binaryPath: '',
        version: '',
        authState: 'unknown',
        authDetail: '',
        checkedAt: new Date(),
        probeState: 'current',
        probeDetail: '',
        versionCoverage: 'unknown',
        testedVersions: '',
        warning: '',
      }),
  };
}

import type { Provider, ResumePoint } from '@agent-bridge/providers';
import type { StoredSession } from '../store/session-store.js';
import { cutShort } from './live-facts.js';
import { whyNotResumable } from './resumable.js';
import { Session, type SessionDeps } from './session.js';
import type { SessionTable } from './session-table.js';

/** A restored session whose agent is to be taken up again, on its own conversation. */
export interface ToResume {
  session: Session;
  point: ResumePoint;
  /** The turn the restart cut short, reported interrupted. */
  interruptedTurn: string | undefined;
}

/**
 * Puts back a session a store kept, as the daemon starts: its events
 * (same seqs, same bytes), cursors and state. A session that was live when
 * the daemon went lost its agent with the daemon's process group: what the
 * restart cut short is closed (waiting permission requests resolved by
 * their default, the running turn reported interrupted), then its agent
 * is to be resumed on its own conversation (returned), or, when it cannot
 * be, the session ends failed with `daemon_restarted`.
 */
export function restoreSession(
  stored: StoredSession,
  deps: SessionDeps,
  table: SessionTable,
  providers: ReadonlyMap<string, Provider>,
): ToResume | undefined {
  const { request, repoPath } = stored.record;
  const provider = providers.get(request.provider) ?? providerGone(request.provider);
  const session = new Session(request, repoPath, provider, { ...deps, restored: stored });
  table.add(session);
  if (!session.live) return undefined;
  const interruptedTurn = session.kept.runningTurn;
  for (const ev of cutShort(session.kept)) session.record(ev);
  const point = session.kept.resumePoint;
  const why =
    stored.record.status === 'STOPPING'
      ? 'it was being stopped'
      : whyNotResumable(provider, deps.settings, point);
  if (why !== undefined || point === undefined) {
    if (point) void provider.discard?.(point).catch(() => undefined);
    session.fail(`the daemon restarted while this session was live, and ${why}`, {
      reason: 'daemon_restarted',
    });
    return undefined;
  }
  session.resuming();
  return { session, point, interruptedTurn };
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
      resume: false,
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

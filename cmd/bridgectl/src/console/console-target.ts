import type {
  BridgeClient,
  BridgeFleet,
  Health,
  ProviderInfo,
  SessionInfo,
  SessionStatus,
  StartSessionRequest,
  TaskOptions,
  TaskReport,
} from '@agent-bridge/bridgeclient';
import { HttpError } from './http-replies.js';

/** The calls on one session that a client and a fleet answer alike. */
type SessionCalls = Pick<
  BridgeClient,
  'getSession' | 'sendInput' | 'interruptTurn' | 'stopSession' | 'respondPermission' | 'events'
>;

/** A daemon as the overview shows it. */
interface DaemonView {
  name: string;
  reachable: boolean;
  /** Why it did not answer. */
  error?: string;
  health?: Health;
  providers?: ProviderInfo[];
  /** The project's sessions it holds, by status. */
  byState?: Record<string, number>;
}

/** A session as listed: with a fleet, the daemon it lives on. */
export type ListedSession = SessionInfo & { daemon?: string };

interface SessionQuery {
  statuses: SessionStatus[];
  provider: string;
  pageSize: number;
  pageToken: string;
}

/**
 * What the console works with: one daemon (a client) or a fleet. The
 * routes call it the same way; a fleet adds the daemon to what it lists
 * and lets a start name one.
 */
export interface ConsoleTarget {
  /** What the page calls it: the daemon's address, or "fleet …". */
  label: string;
  fleet: boolean;
  calls: SessionCalls;
  daemons(): Promise<DaemonView[]>;
  listSessions(q: SessionQuery): Promise<{
    sessions: ListedSession[];
    nextPageToken: string;
    /** Daemons of a fleet that did not answer: their sessions are missing. */
    unreachable: string[];
  }>;
  /** The project's starting and running sessions, everywhere. */
  liveSessions(signal: AbortSignal): AsyncIterable<ListedSession>;
  startSession(req: StartSessionRequest, daemon: string): Promise<{ sessionId: string }>;
  runTask(task: TaskOptions, daemon: string): Promise<TaskReport>;
  /** The client whose context bus and messages the page shows, and its daemon's name. */
  collab(): Promise<{ client: BridgeClient; daemon: string }>;
}

/** The provider filter is the console's: pages are read on until one has a match (20 at most). */
const MAX_PAGES_READ = 20;

/** One daemon, reached by `client`. */
export function daemonTarget(client: BridgeClient, address: string): ConsoleTarget {
  return {
    label: address,
    fleet: false,
    calls: client,
    async daemons() {
      const [health, providers, byState] = await Promise.all([
        client.health(),
        client.listProviders(),
        countByState(client),
      ]);
      return [{ name: address, reachable: true, health, providers, byState }];
    },
    async listSessions(q) {
      let pageToken = q.pageToken;
      for (let read = 1; ; read++) {
        const page = await client.listSessions({
          statuses: q.statuses,
          pageSize: q.pageSize,
          pageToken,
        });
        const sessions = q.provider
          ? page.sessions.filter((s) => s.provider === q.provider)
          : page.sessions;
        if (sessions.length > 0 || page.nextPageToken === '' || read >= MAX_PAGES_READ) {
          return { sessions, nextPageToken: page.nextPageToken, unreachable: [] };
        }
        pageToken = page.nextPageToken;
      }
    },
    liveSessions: (signal) => client.sessions({ statuses: ['STARTING', 'RUNNING'], signal }),
    startSession(req, daemon) {
      if (daemon) throw new HttpError(400, 'this console serves one daemon: name none');
      return client.startSession(req);
    },
    runTask(task, daemon) {
      if (daemon) throw new HttpError(400, 'this console serves one daemon: name none');
      return client.runTask(task);
    },
    collab: async () => ({ client, daemon: address }),
  };
}

/** Several daemons used as one: `fleet` places, routes and lists. */
export function fleetTarget(fleet: BridgeFleet, label: string): ConsoleTarget {
  const clientOf = (daemon: string): BridgeClient => {
    const client = fleet.clients.get(daemon);
    if (!client) throw new HttpError(400, `the fleet has no daemon "${daemon}"`);
    return client;
  };
  return {
    label,
    fleet: true,
    calls: fleet,
    async daemons() {
      const statuses = await fleet.status();
      return Promise.all(
        statuses.map(async (s): Promise<DaemonView> => {
          if (!s.reachable) return { name: s.daemon, reachable: false, error: s.error.message };
          // A daemon that left the directory meanwhile has no client any more: no count.
          const client = fleet.clients.get(s.daemon);
          const byState = client ? await countByState(client).catch(() => undefined) : undefined;
          return {
            name: s.daemon,
            reachable: true,
            health: s.health,
            providers: s.providers,
            byState,
          };
        }),
      );
    },
    async listSessions(q) {
      const offset = q.pageToken === '' ? 0 : Number(q.pageToken);
      if (!Number.isSafeInteger(offset) || offset < 0) {
        throw new HttpError(400, 'page is a token the sessions list gave, not one of your own');
      }
      const all = await fleet.listSessions({ statuses: q.statuses });
      const matching = q.provider
        ? all.sessions.filter((s) => s.provider === q.provider)
        : all.sessions;
      const end = offset + q.pageSize;
      return {
        sessions: matching.slice(offset, end),
        nextPageToken: end < matching.length ? String(end) : '',
        unreachable: [...new Set(all.unreachable.map((u) => u.daemon))],
      };
    },
    async *liveSessions() {
      const { sessions, unreachable } = await fleet.listSessions({
        statuses: ['STARTING', 'RUNNING'],
      });
      yield* sessions;
      // A daemon away is not its sessions ended: the reader must not take them for gone.
      if (unreachable.length > 0) throw (unreachable[0] as { error: Error }).error;
    },
    startSession(req, daemon) {
      if (!daemon) return fleet.startSession(req);
      clientOf(daemon); // one the page was shown: the SDK takes any other for a bug of ours
      return fleet.startSession({ ...req, daemon });
    },
    async runTask(task, daemon) {
      if (daemon) return clientOf(daemon).runTask(task);
      // None answering is the fleet unavailable (a retry may do), not the task refused.
      if (!(await fleet.status()).some((s) => s.reachable)) {
        throw new HttpError(503, 'no daemon of the fleet answers');
      }
      return fleet.runTask(task);
    },
    async collab() {
      // The first by name that answers (of those a directory lists now).
      const first = (await fleet.status())
        .filter((s) => s.reachable)
        .map((s) => s.daemon)
        .sort()[0];
      if (first === undefined) throw new HttpError(503, 'no daemon of the fleet answers');
      return { client: clientOf(first), daemon: first };
    },
  };
}

/** The project's sessions a daemon holds, counted by status (every page read). */
async function countByState(client: BridgeClient): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for await (const s of client.sessions({ pageSize: 1000 })) {
    counts[s.status] = (counts[s.status] ?? 0) + 1;
  }
  return counts;
}

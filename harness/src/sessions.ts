import { randomUUID } from 'node:crypto';
import { type BridgeServiceClient, EventType, type SessionEvent } from '@agent-bridge/proto';
import { type Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { call, collect, showEvents, streamEvents } from './client.js';

/** Credentials for each call: a fixed token, or a function that renews one. */
export type Auth = Metadata | (() => Promise<Metadata>);

/**
 * The calls a test makes on sessions of one project, so agent tests read as
 * "start, send, wait for events" rather than RPC plumbing.
 */
export function sessionClient(
  client: BridgeServiceClient,
  auth: Auth,
  opts: {
    projectId: string;
    repoPath: string;
    /** How long `events` waits by default (real CLIs take longer than fakes). */
    eventsTimeoutMs?: number;
    /** The deadline of StartSession (real CLIs started together take longer than fakes). */
    startTimeoutMs?: number;
  },
) {
  const md = async () => (typeof auth === 'function' ? auth() : auth);
  const session = (sessionId: string) => ({
    sessionId,
    /**
     * SendInput; when the session has ended, the error names how (its last
     * events, with the terminal event's data), so a test that fails on an
     * agent that died says why.
     */
    send: async (text: string) => {
      try {
        return await call(
          client,
          (c) => c.sendInput,
          { sessionId, text, idempotencyKey: '' },
          await md(),
        );
      } catch (err) {
        if ((err as ServiceError).code !== status.FAILED_PRECONDITION) throw err;
        const { events } = await collect(
          streamEvents(client, { sessionId, afterSeq: 0n }, await md()),
          (_e, all) => ended(all),
          { timeoutMs: 5_000 },
        ).catch(() => ({ events: [] as SessionEvent[] }));
        const last = events.at(-1);
        const why = `${showEvents(events.slice(-8))}\n${JSON.stringify(last?.data ?? {})}`;
        throw Object.assign(new Error(`${(err as Error).message}\n${why}`, { cause: err }), {
          code: (err as ServiceError).code,
        });
      }
    },
    interrupt: async () => call(client, (c) => c.interruptTurn, { sessionId }, await md()),
    stop: async (force = false) =>
      call(client, (c) => c.stopSession, { sessionId, force }, await md()),
    get: async () => call(client, (c) => c.getSession, { sessionId }, await md()),
    /**
     * All events from the start until `until(all)` holds; without `until`,
     * until the stream ends. Fails when the stream ends before `until` holds,
     * or after `timeoutMs` (see `collect`).
     */
    events: async (until?: (all: SessionEvent[]) => boolean, timeoutMs = opts.eventsTimeoutMs) =>
      (
        await collect(
          streamEvents(client, { sessionId, afterSeq: 0n }, await md()),
          until ? (_e, all) => until(all) : undefined,
          { what: until ? `session ${sessionId}: events until ${until}` : undefined, timeoutMs },
        )
      ).events,
  });
  return {
    session,
    /** Starts a session (a fresh id); `started` is StartSession's response. */
    start: async (provider: string, agentOpts: Record<string, string> = {}) => {
      const sessionId = randomUUID();
      const started = await call(
        client,
        (c) => c.startSession,
        { projectId: opts.projectId, sessionId, repoPath: opts.repoPath, provider, agentOpts },
        await md(),
        opts.startTimeoutMs,
      );
      return { ...session(sessionId), started };
    },
    providers: async () => call(client, (c) => c.listProviders, {}, await md()),
  };
}

export const ofType = (all: SessionEvent[], type: EventType) => all.filter((e) => e.type === type);

const ended = (all: SessionEvent[]) =>
  all.some(
    (e) =>
      e.type === EventType.EVENT_TYPE_SESSION_FAILED ||
      e.type === EventType.EVENT_TYPE_SESSION_STOPPED,
  );

/** True once `n` turns completed, or the session ended (so a failure does not hang the wait). */
export const turnsDone = (n: number) => (all: SessionEvent[]) =>
  ofType(all, EventType.EVENT_TYPE_TURN_COMPLETED).length >= n || ended(all);

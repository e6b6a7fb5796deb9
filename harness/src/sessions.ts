import { randomUUID } from 'node:crypto';
import { type BridgeServiceClient, EventType, type SessionEvent } from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { call, collect, streamEvents } from './client.js';

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
    send: async (text: string) =>
      call(client, (c) => c.sendInput, { sessionId, text, idempotencyKey: '' }, await md()),
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

/** True once `n` turns completed, or the session ended (so a failure does not hang the wait). */
export const turnsDone = (n: number) => (all: SessionEvent[]) =>
  ofType(all, EventType.EVENT_TYPE_TURN_COMPLETED).length >= n ||
  all.some(
    (e) =>
      e.type === EventType.EVENT_TYPE_SESSION_FAILED ||
      e.type === EventType.EVENT_TYPE_SESSION_STOPPED,
  );

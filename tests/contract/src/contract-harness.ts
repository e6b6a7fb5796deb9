import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BridgeServiceClient, EventType, type SessionEvent } from '@agent-bridge/proto';
import {
  bearer,
  call,
  collect,
  connect,
  createTestPki,
  mintToken,
  startDaemon,
  streamEvents,
  type TestDaemon,
} from '@agent-bridge/tests/harness';

/** The pinned CLIs, installed by scripts/install-clis.mjs. */
export const CLI_BIN = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'clis',
  'node_modules',
  '.bin',
);
export const T = EventType;

/** A temporary HOME (and scratch space) for one CLI, removed by `cleanup`. */
export function tempHome(name: string): { home: string; cleanup(): void } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), `contract-${name}-`)));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A daemon over mTLS with the given providers, and a client for project "alpha". */
export async function contractDaemon(providers: Record<string, unknown>) {
  const pki = await createTestPki();
  const daemon: TestDaemon = await startDaemon({
    pki,
    config: { sessions: { max_per_project: 20, max_global: 20 }, providers },
  });
  // Some CLIs want a git repository (codex warns, claude records the branch).
  execFileSync('git', ['init', '-q', daemon.repo]);
  const client: BridgeServiceClient = connect({
    port: daemon.port,
    caPem: pki.ca.certPem,
    client: pki.client,
  });
  // Tokens live at most 5 minutes (the daemon's jwt_max_ttl): renew as a client would.
  let minted = 0;
  let current = bearer('');
  const renew = async () => {
    if (Date.now() - minted > 120_000) {
      current = bearer(
        await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha', ttl: 300 }),
      );
      minted = Date.now();
    }
    return current;
  };

  const session = (sessionId: string) => ({
    sessionId,
    send: async (text: string) =>
      call(client, (c) => c.sendInput, { sessionId, text, idempotencyKey: '' }, await renew()),
    interrupt: async () => call(client, (c) => c.interruptTurn, { sessionId }, await renew()),
    stop: async () =>
      call(client, (c) => c.stopSession, { sessionId, force: false }, await renew()),
    get: async () => call(client, (c) => c.getSession, { sessionId }, await renew()),
    /** All events from the start until `until(all)` holds (or the stream ends). */
    events: async (until?: (all: SessionEvent[]) => boolean) =>
      (
        await collect(
          streamEvents(client, { sessionId, afterSeq: 0n }, await renew()),
          until ? (_e, all) => until(all) : undefined,
        )
      ).events,
  });
  return {
    daemon,
    client,
    providers: async () => call(client, (c) => c.listProviders, {}, await renew()),
    start: async (provider: string, agentOpts: Record<string, string> = {}) => {
      const sessionId = randomUUID();
      await call(
        client,
        (c) => c.startSession,
        { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider, agentOpts },
        await renew(),
      );
      return session(sessionId);
    },
    close: async () => {
      client.close();
      await daemon.stop();
    },
  };
}

export const ofType = (all: SessionEvent[], type: EventType) => all.filter((e) => e.type === type);
export const turnsDone = (n: number) => (all: SessionEvent[]) =>
  ofType(all, T.EVENT_TYPE_TURN_COMPLETED).length >= n ||
  all.some(
    (e) => e.type === T.EVENT_TYPE_SESSION_FAILED || e.type === T.EVENT_TYPE_SESSION_STOPPED,
  );
/** A compact view of a session's events, for failure messages. */
export const show = (all: SessionEvent[]) =>
  all.map((e) => `${e.seq} ${EventType[e.type]} ${e.turnId} ${e.text.slice(0, 120)}`).join('\n');

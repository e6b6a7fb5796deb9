/**
 * Every BridgeClient method against a real daemon: what it answers, and for
 * each failure the contract documents, the exact error class (and code, and
 * RPC name), with nothing changed on the daemon.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  AlreadyExistsError,
  awaitsAnswer,
  type BridgeClient,
  BridgeError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  OutOfRangeError,
  PermissionDeniedError,
  permissionRequest,
  permissionResolution,
  ResourceExhaustedError,
  type SessionEvent,
  type StatusName,
} from '@agent-bridge/bridgeclient';
import { useDaemon, waitFor } from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';
import {
  closeClients,
  projectState,
  range,
  rejection,
  sdkClient,
  seqsOf,
  settledSession,
} from './helpers.js';

afterAll(closeClients);

type ErrorClass = new (...args: never[]) => BridgeError;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Reads a session's events from the start until `until` holds for one (then ends the stream). */
async function readUntil(
  client: BridgeClient,
  sessionId: string,
  until: (e: SessionEvent) => boolean,
): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const e of client.events(sessionId, { afterSeq: 0 })) {
    out.push(e);
    if (until(e)) return out;
  }
  throw new Error(`the session ended before the awaited event:\n${JSON.stringify(out)}`);
}

describe('with default limits', () => {
  const bridge = useDaemon({
    fakeProviders: { echo: ['echo'] },
    config: {
      providers: {
        ghost: {
          binary: '/nonexistent/ghost-agent',
          permissions: 'ask',
          permission_timeout: '90s',
          permission_default: 'allow',
          auto_allow: ['Read', 'mcp__docs__*'],
        },
        mock_ask: { adapter: 'mock', permissions: 'ask' },
      },
    },
  });
  const alpha = () => sdkClient(bridge);

  describe('startSession', () => {
    it('generates a lowercase UUID when no id is given, and the session runs', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
      expect(s.sessionId).toMatch(UUID);
      expect(s.status).toBe('RUNNING');
      expect(s.createdAt).toBeInstanceOf(Date);
      const info = await c.getSession(s.sessionId);
      expect(info).toMatchObject({
        sessionId: s.sessionId,
        projectId: 'alpha',
        provider: 'mock',
        status: 'RUNNING',
        repoPath: bridge.daemon.repo,
        oldestSeq: 1,
        subscriberCount: 0,
      });
      expect(info.createdAt.getTime()).toBe(s.createdAt.getTime());
      expect(typeof info.lastSeq).toBe('number');
      expect(info.pid).toBeGreaterThan(0);
      await c.stopSession(s.sessionId, { force: true });
    });

    it('a retry of the same start returns the same session and starts nothing more', async () => {
      const c = alpha();
      const sessionId = randomUUID();
      const req = { sessionId, provider: 'mock', repoPath: bridge.daemon.repo };
      const first = await c.startSession(req);
      const before = await projectState(c);
      const again = await c.startSession(req);
      expect(again).toEqual(first);
      expect(await projectState(c)).toEqual(before);
      await c.stopSession(sessionId, { force: true });
    });

    it('refuses each bad request with its documented error class and changes nothing', async () => {
      const c = alpha();
      const repo = bridge.daemon.repo;
      const existing = await c.startSession({ provider: 'mock', repoPath: repo });
      const before = await projectState(c);
      const start = (o: Partial<Parameters<BridgeClient['startSession']>[0]>) =>
        c.startSession({ provider: 'mock', repoPath: repo, ...o });
      const bad = InvalidArgumentError;
      const cases: [string, () => Promise<unknown>, ErrorClass, StatusName][] = [
        ['unknown provider', () => start({ provider: 'nope' }), bad, 'INVALID_ARGUMENT'],
        ['provider id not exact', () => start({ provider: 'Mock' }), bad, 'INVALID_ARGUMENT'],
        ['relative path', () => start({ repoPath: 'repos/app' }), bad, 'INVALID_ARGUMENT'],
        [
          'non-normalised path',
          () => start({ repoPath: `${repo}/../app` }),
          bad,
          'INVALID_ARGUMENT',
        ],
        ['empty path', () => start({ repoPath: '' }), bad, 'INVALID_ARGUMENT'],
        ['bad uuid', () => start({ sessionId: 'not-a-uuid' }), bad, 'INVALID_ARGUMENT'],
        [
          'uppercase uuid',
          () => start({ sessionId: randomUUID().toUpperCase() }),
          bad,
          'INVALID_ARGUMENT',
        ],
        [
          'agent_opts value malformed',
          () => start({ agentOpts: { model: '--flag' } }),
          bad,
          'INVALID_ARGUMENT',
        ],
        [
          'agent_opts key not allowed',
          () => start({ agentOpts: { bogus: 'x' } }),
          PermissionDeniedError,
          'PERMISSION_DENIED',
        ],
        [
          'agent_opts dangerous value',
          () => start({ agentOpts: { permission_mode: 'bypassPermissions' } }),
          PermissionDeniedError,
          'PERMISSION_DENIED',
        ],
        [
          'path outside allowed roots',
          () => start({ repoPath: bridge.daemon.dir }),
          PermissionDeniedError,
          'PERMISSION_DENIED',
        ],
        [
          'missing repo dir',
          () => start({ repoPath: join(repo, 'missing') }),
          FailedPreconditionError,
          'FAILED_PRECONDITION',
        ],
        [
          'unavailable provider',
          () => start({ provider: 'ghost' }),
          FailedPreconditionError,
          'FAILED_PRECONDITION',
        ],
        [
          'same id, other provider',
          () => start({ sessionId: existing.sessionId, provider: 'echo' }),
          AlreadyExistsError,
          'ALREADY_EXISTS',
        ],
        [
          'same id, other opts',
          () => start({ sessionId: existing.sessionId, agentOpts: { model: 'x' } }),
          AlreadyExistsError,
          'ALREADY_EXISTS',
        ],
      ];
      const wrong: string[] = [];
      for (const [what, call, Class, code] of cases) {
        await rejection(call(), Class, code, 'StartSession').catch((e: Error) =>
          wrong.push(`${what}: ${e.message}`),
        );
      }
      expect(wrong).toEqual([]);
      expect(await projectState(c)).toEqual(before);
      await c.stopSession(existing.sessionId, { force: true });
    });
  });

  describe('stopSession and getSession', () => {
    it('stops, stops again without error, and refuses unknown and malformed ids', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo });
      expect(['STOPPING', 'STOPPED']).toContain(await c.stopSession(s.sessionId));
      await waitFor(
        'the session to be STOPPED',
        async () => (await c.getSession(s.sessionId)).status === 'STOPPED',
      );
      expect(await c.stopSession(s.sessionId)).toBe('STOPPED');
      const info = await c.getSession(s.sessionId);
      expect(info.stoppedAt).toBeInstanceOf(Date);
      const before = await projectState(c);
      await rejection(c.stopSession(randomUUID()), NotFoundError, 'NOT_FOUND', 'StopSession');
      await rejection(
        c.stopSession('nope'),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        'StopSession',
      );
      await rejection(c.getSession(randomUUID()), NotFoundError, 'NOT_FOUND', 'GetSession');
      await rejection(c.getSession('nope'), InvalidArgumentError, 'INVALID_ARGUMENT', 'GetSession');
      expect(await projectState(c)).toEqual(before);
    });

    it("another project's session is NOT_FOUND, exactly like a missing one, for every call", async () => {
      const c = alpha();
      const beta = sdkClient(bridge, { jwt: { projectId: 'beta' } });
      const s = await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo });
      await c.sendInput(s.sessionId, 'mine');
      await readUntil(c, s.sessionId, (e) => e.text === 'echo: mine');
      const before = await settledSession(c, s.sessionId);
      const id = s.sessionId;
      await rejection(beta.getSession(id), NotFoundError, 'NOT_FOUND', 'GetSession');
      await rejection(beta.sendInput(id, 'theirs'), NotFoundError, 'NOT_FOUND', 'SendInput');
      await rejection(beta.interruptTurn(id), NotFoundError, 'NOT_FOUND', 'InterruptTurn');
      await rejection(beta.ackEvents(id, 'b', 1), NotFoundError, 'NOT_FOUND', 'AckEvents');
      await rejection(beta.stopSession(id), NotFoundError, 'NOT_FOUND', 'StopSession');
      const reading = (async () => {
        for await (const _ of beta.events(id)) throw new Error('an event of another project');
      })();
      await rejection(reading, NotFoundError, 'NOT_FOUND', 'StreamEventBatches');
      expect(await projectState(beta)).toEqual([]);
      expect(await settledSession(c, id)).toEqual(before);
      expect(before.status).toBe('RUNNING');
      await c.stopSession(id, { force: true });
    });
  });

  describe('listSessions and sessions()', () => {
    it('pages through the project newest first, and the iterator yields every page', async () => {
      // A project of its own, so other tests' sessions do not interfere.
      const c = sdkClient(bridge, { jwt: { projectId: 'paging' } });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          (await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo })).sessionId,
        );
      }
      const newestFirst = [...ids].reverse();
      const pages: string[][] = [];
      let pageToken = '';
      do {
        const page = await c.listSessions({ pageSize: 2, pageToken });
        pages.push(page.sessions.map((s) => s.sessionId));
        pageToken = page.nextPageToken;
      } while (pageToken !== '');
      expect(pages).toEqual([
        newestFirst.slice(0, 2),
        newestFirst.slice(2, 4),
        newestFirst.slice(4),
      ]);
      const all: string[] = [];
      for await (const s of c.sessions({ pageSize: 2 })) all.push(s.sessionId);
      expect(all).toEqual(newestFirst);
      // With a status filter, across pages too.
      for (const id of ids.slice(1, 4)) await c.stopSession(id, { force: true });
      await waitFor('three sessions to be STOPPED', async () => {
        const page = await c.listSessions({ statuses: ['STOPPED'] });
        return page.sessions.length === 3;
      });
      const stopped: string[] = [];
      for await (const s of c.sessions({ pageSize: 1, statuses: ['STOPPED'] })) {
        expect(s.status).toBe('STOPPED');
        stopped.push(s.sessionId);
      }
      expect(stopped).toEqual(newestFirst.slice(1, 4));
      const running = await c.listSessions({ statuses: ['RUNNING', 'STARTING'] });
      expect(running.sessions.map((s) => s.sessionId)).toEqual([newestFirst[0], newestFirst[4]]);
      expect(running.nextPageToken).toBe('');
      // Bad paging requests.
      const token = (await c.listSessions({ pageSize: 1 })).nextPageToken;
      await rejection(
        c.listSessions({ pageSize: 1001 }),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        'ListSessions',
      );
      await rejection(
        c.listSessions({ pageToken: 'garbage' }),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        'ListSessions',
      );
      await rejection(
        c.listSessions({ pageToken: token, statuses: ['STOPPED'] }),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        'ListSessions',
      );
      await expect(c.listSessions({ statuses: ['BOGUS' as never] })).rejects.toThrow(
        /unknown session status "BOGUS"/,
      );
      for (const id of ids) await c.stopSession(id, { force: true });
    });
  });

  describe('sendInput', () => {
    it('returns the seq of its INPUT_RECEIVED and the key; a repeat with the key returns the same seq and writes nothing', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo });
      const first = await c.sendInput(s.sessionId, 'one');
      expect(typeof first.seq).toBe('number');
      expect(first.idempotencyKey).toMatch(UUID);
      const repeat = await c.sendInput(s.sessionId, 'one', {
        idempotencyKey: first.idempotencyKey,
      });
      expect(repeat).toEqual(first);
      const own = await c.sendInput(s.sessionId, 'two', { idempotencyKey: 'my-key-1' });
      expect(own.idempotencyKey).toBe('my-key-1');
      expect(own.seq).toBeGreaterThan(first.seq);
      expect(await c.sendInput(s.sessionId, 'two', { idempotencyKey: 'my-key-1' })).toEqual(own);
      // Without a key given, every call is a new input.
      const three = await c.sendInput(s.sessionId, 'three');
      const events = await readUntil(c, s.sessionId, (e) => e.text === 'echo: three');
      expect(seqsOf(events)).toEqual(range(1, events.length));
      const inputs = events.filter((e) => e.type === 'INPUT_RECEIVED');
      expect(inputs.map((e) => [e.seq, e.text])).toEqual([
        [first.seq, 'one'],
        [own.seq, 'two'],
        [three.seq, 'three'],
      ]);
      expect(events.filter((e) => e.text === 'echo: one')).toHaveLength(1);
      await c.stopSession(s.sessionId, { force: true });
    });

    it('a failed call carries what the client generated for it, to retry with: the input key, the session id', async () => {
      const c = alpha();
      const input = await c.sendInput(randomUUID(), 'x').catch((err: unknown) => err);
      expect(input).toBeInstanceOf(NotFoundError);
      expect((input as NotFoundError).idempotencyKey).toMatch(UUID);
      const given = await c
        .sendInput(randomUUID(), 'x', { idempotencyKey: 'my-key-2' })
        .catch((err: unknown) => err);
      expect((given as NotFoundError).idempotencyKey).toBe('my-key-2');
      const start = await c
        .startSession({ provider: 'no-such-provider', repoPath: bridge.daemon.repo })
        .catch((err: unknown) => err);
      expect(start).toBeInstanceOf(BridgeError);
      expect((start as BridgeError).sessionId).toMatch(UUID);
      expect((start as BridgeError).idempotencyKey).toBeUndefined();
    });

    it('refuses empty, oversize, a too-long key, unknown and stopped sessions, writing nothing', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo });
      const id = s.sessionId;
      // The limit is in bytes of UTF-8: 65536 bytes pass, 65537 fail.
      const max = 'é'.repeat(32_768);
      const ok = await c.sendInput(id, max);
      // Its echo (over 64 KiB, so in pieces) is recorded before the snapshot.
      await readUntil(c, id, (e) => e.seq > ok.seq && e.type === 'STDOUT' && !e.data?.continued);
      const before = await settledSession(c, id);
      const M = 'SendInput';
      await rejection(c.sendInput(id, ''), InvalidArgumentError, 'INVALID_ARGUMENT', M);
      await rejection(c.sendInput(id, `${max}x`), InvalidArgumentError, 'INVALID_ARGUMENT', M);
      await rejection(
        c.sendInput(id, 'x', { idempotencyKey: 'k'.repeat(129) }),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        M,
      );
      await rejection(c.sendInput('nope', 'x'), InvalidArgumentError, 'INVALID_ARGUMENT', M);
      await rejection(c.sendInput(randomUUID(), 'x'), NotFoundError, 'NOT_FOUND', M);
      expect(await settledSession(c, id)).toEqual(before);
      await c.stopSession(id);
      await waitFor(
        'the session to stop',
        async () => (await c.getSession(id)).status === 'STOPPED',
      );
      const stopped = await settledSession(c, id);
      await rejection(c.sendInput(id, 'late'), FailedPreconditionError, 'FAILED_PRECONDITION', M);
      expect(await settledSession(c, id)).toEqual(stopped);
      const events = await readUntil(c, id, (e) => e.type === 'SESSION_STOPPED');
      expect(events.filter((e) => e.type === 'INPUT_RECEIVED').map((e) => e.seq)).toEqual([ok.seq]);
    });
  });

  describe('interruptTurn', () => {
    it('interrupts a running turn of a provider that can', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
      await c.sendInput(s.sessionId, 'a slow answer please');
      await readUntil(c, s.sessionId, (e) => e.type === 'AGENT_MESSAGE_DELTA');
      const r = await c.interruptTurn(s.sessionId);
      expect(r.interrupted).toBe(true);
      expect(r.turnId).not.toBe('');
      const events = await readUntil(c, s.sessionId, (e) => e.type === 'TURN_COMPLETED');
      const done = events.at(-1)!;
      expect(done.turnId).toBe(r.turnId);
      expect(done.data?.interrupted).toBe(true);
      // No turn running now: nothing to interrupt.
      expect(await c.interruptTurn(s.sessionId)).toEqual({ interrupted: false, turnId: '' });
      await c.stopSession(s.sessionId, { force: true });
    });

    it('is FAILED_PRECONDITION for a provider without interrupt, NOT_FOUND and INVALID_ARGUMENT for bad ids', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo });
      const before = await settledSession(c, s.sessionId);
      const M = 'InterruptTurn';
      await rejection(
        c.interruptTurn(s.sessionId),
        FailedPreconditionError,
        'FAILED_PRECONDITION',
        M,
      );
      await rejection(c.interruptTurn(randomUUID()), NotFoundError, 'NOT_FOUND', M);
      await rejection(c.interruptTurn('nope'), InvalidArgumentError, 'INVALID_ARGUMENT', M);
      expect(await settledSession(c, s.sessionId)).toEqual(before);
      await c.stopSession(s.sessionId, { force: true });
    });
  });

  describe('respondPermission', () => {
    /** A mock_ask session whose agent waits for an answer about "/tool Bash ls". */
    const waiting = async (c: BridgeClient) => {
      const s = await c.startSession({ provider: 'mock_ask', repoPath: bridge.daemon.repo });
      await c.sendInput(s.sessionId, '/tool Bash ls');
      const seen = await readUntil(c, s.sessionId, (e) => e.type === 'PERMISSION_REQUESTED');
      const request = permissionRequest(seen.at(-1)!)!;
      expect(request).toMatchObject({ tool: 'Bash', summary: 'ls', mode: 'ask' });
      expect(awaitsAnswer(request)).toBe(true);
      return { sessionId: s.sessionId, request };
    };

    it('answers a waiting request: the agent gets it, PERMISSION_RESOLVED names the caller', async () => {
      const c = alpha();
      const { sessionId, request } = await waiting(c);
      const seq = await c.respondPermission(sessionId, request.requestId, 'allow_once', {
        reason: 'read-only',
      });
      const events = await readUntil(c, sessionId, (e) => e.type === 'TURN_COMPLETED');
      const resolved = events.find((e) => e.seq === seq);
      expect(resolved && permissionResolution(resolved)).toMatchObject({
        requestId: request.requestId,
        decision: 'allow_once',
        decidedBy: 'caller',
        reason: 'read-only',
        caller: { subject: 'sdk-test', issuer: 'control' },
      });
      expect(events.filter((e) => e.type === 'AGENT_MESSAGE').at(-1)?.text).toContain(
        'Bash was allowed',
      );
      await c.stopSession(sessionId, { force: true });
    });

    it('allow_session answers the next request of the same tool without asking ("session_grant")', async () => {
      const c = alpha();
      const { sessionId, request } = await waiting(c);
      await c.respondPermission(sessionId, request.requestId, 'allow_session');
      await readUntil(c, sessionId, (e) => e.type === 'TURN_COMPLETED');
      await c.sendInput(sessionId, '/tool Bash pwd');
      const events = await readUntil(
        c,
        sessionId,
        (e) => e.type === 'TURN_COMPLETED' && e.turnId !== request.turnId,
      );
      const second = events.filter((e) => e.type === 'PERMISSION_REQUESTED').map(permissionRequest);
      expect(second.map((r) => r?.summary)).toEqual(['ls', 'pwd']);
      expect(second[1]?.expiresAt).toBeUndefined();
      const outcomes = events
        .filter((e) => e.type === 'PERMISSION_RESOLVED')
        .map((e) => permissionResolution(e)?.decidedBy);
      expect(outcomes).toEqual(['caller', 'session_grant']);
      await c.stopSession(sessionId, { force: true });
    });

    it('refuses a second answer, an unknown request, bad ids and a long reason with their classes, changing nothing', async () => {
      const c = alpha();
      const { sessionId, request } = await waiting(c);
      const M = 'RespondPermission';
      const before = await settledSession(c, sessionId);
      await rejection(
        c.respondPermission(sessionId, 'perm-99', 'deny'),
        NotFoundError,
        'NOT_FOUND',
        M,
      );
      await rejection(
        c.respondPermission(randomUUID(), request.requestId, 'deny'),
        NotFoundError,
        'NOT_FOUND',
        M,
      );
      await rejection(
        c.respondPermission('nope', request.requestId, 'deny'),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        M,
      );
      await rejection(
        c.respondPermission(sessionId, '', 'deny'),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        M,
      );
      await rejection(
        c.respondPermission(sessionId, request.requestId, 'deny', { reason: 'r'.repeat(1025) }),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        M,
      );
      // Not a decision: refused by the client before anything is sent.
      await expect(
        c.respondPermission(sessionId, request.requestId, 'allow' as 'deny'),
      ).rejects.toThrow(TypeError);
      expect(await settledSession(c, sessionId)).toEqual(before);

      await c.respondPermission(sessionId, request.requestId, 'deny');
      const second = await rejection(
        c.respondPermission(sessionId, request.requestId, 'allow_once'),
        FailedPreconditionError,
        'FAILED_PRECONDITION',
        M,
      );
      expect(second.details).toBe(
        `permission request ${request.requestId} is already resolved: deny (decided by caller)`,
      );
      await c.stopSession(sessionId, { force: true });
    });
  });

  describe('ackEvents', () => {
    it('stores the cursor, never moves it back, refuses a seq beyond the last with OUT_OF_RANGE', async () => {
      const c = alpha();
      const s = await c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo });
      await c.sendInput(s.sessionId, 'x');
      await readUntil(c, s.sessionId, (e) => e.text === 'echo: x');
      const last = (await c.getSession(s.sessionId)).lastSeq;
      expect(await c.ackEvents(s.sessionId, 'sub', 2)).toBe(2);
      expect(await c.ackEvents(s.sessionId, 'sub', 1)).toBe(2);
      const M = 'AckEvents';
      await rejection(
        c.ackEvents(s.sessionId, 'sub', last + 1),
        OutOfRangeError,
        'OUT_OF_RANGE',
        M,
      );
      await rejection(
        c.ackEvents(s.sessionId, 'bad id!', 1),
        InvalidArgumentError,
        'INVALID_ARGUMENT',
        M,
      );
      await rejection(c.ackEvents(s.sessionId, '', 1), InvalidArgumentError, 'INVALID_ARGUMENT', M);
      await rejection(c.ackEvents(randomUUID(), 'sub', 1), NotFoundError, 'NOT_FOUND', M);
      // The cursor is where it was: 0 reads it back without moving it.
      expect(await c.ackEvents(s.sessionId, 'sub', 0)).toBe(2);
      expect(await c.ackEvents(s.sessionId, 'sub', last)).toBe(last);
      for (const seq of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
        await expect(c.ackEvents(s.sessionId, 'sub', seq)).rejects.toThrow(
          new TypeError(`ackSeq must be a non-negative safe integer, got ${seq}`),
        );
      }
      expect(await c.ackEvents(s.sessionId, 'sub', 0)).toBe(last);
      // A stream for the subscriber resumes after the cursor.
      await c.sendInput(s.sessionId, 'y');
      const after: SessionEvent[] = [];
      for await (const e of c.events(s.sessionId, { subscriberId: 'sub' })) {
        after.push(e);
        if (e.text === 'echo: y') break;
      }
      expect(after[0]!.seq).toBe(last + 1);
      await c.stopSession(s.sessionId, { force: true });
    });
  });

  describe('health and listProviders', () => {
    it('describe the daemon and its providers', async () => {
      const c = alpha();
      const h = await c.health();
      expect(h).toMatchObject({ status: 'serving', sessionLimit: 20, projectSessionLimit: 5 });
      expect(h.serverInstanceId).not.toBe('');
      expect(h.startedAt).toBeInstanceOf(Date);
      const byId = new Map(h.providers.map((p) => [p.provider, p]));
      expect(byId.get('mock')).toEqual({
        provider: 'mock',
        available: true,
        error: '',
        probeState: 'CURRENT',
        confirmedAt: expect.any(Date),
        probeDetail: '',
        warning: '',
      });
      expect(byId.get('ghost')?.available).toBe(false);
      expect(byId.get('ghost')?.error).not.toBe('');
      const providers = new Map((await c.listProviders()).map((p) => [p.id, p]));
      expect([...providers.keys()].sort()).toEqual(['echo', 'ghost', 'mock', 'mock_ask']);
      expect(providers.get('mock')).toMatchObject({
        available: true,
        authState: 'NOT_REQUIRED',
        capabilities: { structuredEvents: true, multiTurn: true, interrupt: true },
        // The mock has no tested range: nothing to place its version against.
        versionCoverage: 'UNKNOWN',
        testedVersions: '',
        warning: '',
      });
      expect(providers.get('echo')).toMatchObject({
        available: true,
        capabilities: { structuredEvents: false, interrupt: false },
      });
      expect(providers.get('ghost')?.available).toBe(false);
      expect(providers.get('ghost')?.error).not.toBe('');
      // What decides their sessions' permission requests: the defaults, and ghost's own settings.
      expect(providers.get('mock')?.permissionPolicy).toEqual({
        mode: 'deny',
        timeoutMs: 300_000,
        defaultDecision: 'deny',
        autoAllow: [],
      });
      expect(providers.get('ghost')?.permissionPolicy).toEqual({
        mode: 'ask',
        timeoutMs: 90_000,
        defaultDecision: 'allow',
        autoAllow: ['Read', 'mcp__docs__*'],
      });
    });
  });
});

describe('session limits and free capacity', () => {
  const GLOBAL = 4;
  const PER_PROJECT = 3;
  const bridge = useDaemon({
    config: { sessions: { max_global: GLOBAL, max_per_project: PER_PROJECT } },
  });

  it('freeCapacity is the smaller room of the two limits; a start beyond either is RESOURCE_EXHAUSTED', async () => {
    const alpha = sdkClient(bridge);
    const beta = sdkClient(bridge, { jwt: { projectId: 'beta' } });
    const start = (c: BridgeClient) =>
      c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const room = async (c: BridgeClient) => {
      const h = await c.health();
      expect(h.freeCapacity).toBe(
        Math.min(
          h.sessionLimit - h.activeSessions,
          h.projectSessionLimit - h.projectActiveSessions,
        ),
      );
      return { free: h.freeCapacity, active: h.activeSessions, project: h.projectActiveSessions };
    };
    expect(await room(alpha)).toEqual({ free: 3, active: 0, project: 0 });
    const a1 = await start(alpha);
    const a2 = await start(alpha);
    // alpha is bound by its project limit (3 - 2), beta by the global one (4 - 2).
    expect(await room(alpha)).toEqual({ free: 1, active: 2, project: 2 });
    expect(await room(beta)).toEqual({ free: 2, active: 2, project: 0 });
    const a3 = await start(alpha);
    expect(await room(alpha)).toEqual({ free: 0, active: 3, project: 3 });
    const alphaBefore = await projectState(alpha);
    await rejection(start(alpha), ResourceExhaustedError, 'RESOURCE_EXHAUSTED', 'StartSession');
    expect(await projectState(alpha)).toEqual(alphaBefore);
    const b1 = await start(beta);
    expect(await room(beta)).toEqual({ free: 0, active: 4, project: 1 });
    const betaBefore = await projectState(beta);
    await rejection(start(beta), ResourceExhaustedError, 'RESOURCE_EXHAUSTED', 'StartSession');
    expect(await projectState(beta)).toEqual(betaBefore);
    // Room comes back once a session has ended.
    await alpha.stopSession(a1.sessionId, { force: true });
    await waitFor(
      'a1 to stop',
      async () => (await alpha.getSession(a1.sessionId)).status !== 'STOPPING',
    );
    expect(await room(alpha)).toEqual({ free: 1, active: 3, project: 2 });
    expect(await room(beta)).toEqual({ free: 1, active: 3, project: 1 });
    for (const s of [a2, a3]) await alpha.stopSession(s.sessionId, { force: true });
    await beta.stopSession(b1.sessionId, { force: true });
  });
});

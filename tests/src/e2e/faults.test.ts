import { randomUUID } from 'node:crypto';
import { type BridgeServiceClient, EventType, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  codeOf,
  collect,
  connect,
  createTestPki,
  descendants,
  groupMembers,
  isAlive,
  mintToken,
  startDaemon,
  status,
  streamEvents,
  type TestDaemon,
  type TestPki,
  waitFor,
} from '../harness/index.js';

let pki: TestPki;
let daemon: TestDaemon;
let client: BridgeServiceClient;
let md: ReturnType<typeof bearer>;

beforeAll(async () => {
  pki = await createTestPki();
  daemon = await startDaemon({
    pki,
    config: {
      sessions: { stop_grace_period: '1s', max_per_project: 10, max_global: 10 },
      providers: {
        missing: { binary: '/nonexistent/agent-cli' },
        slow: { binary: process.execPath, args: [], startup_timeout: '300ms' },
        // A shell that really closes its stdin (exec 0<&-), then keeps running.
        closed: {
          binary: '/bin/sh',
          args: ['-c', 'exec 0<&-; echo ready; exec sleep 1000'],
          ready_pattern: '^ready$',
        },
      },
    },
    fakeProviders: {
      exit3: ['exit', '3'],
      crash: ['crash-on-input'],
      stubborn: ['ignore-term'],
      orphaner: ['grandchild-exit'],
      split: ['split'],
      echo: ['echo'],
      slow: ['slow-start', '10000'],
    },
  });
  client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  md = bearer(
    await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha', ttl: 300 }),
  );
});

afterAll(async () => {
  client?.close();
  await daemon?.stop();
});

async function start(provider: string) {
  const sessionId = randomUUID();
  const res = await call(
    client,
    (c) => c.startSession,
    { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider, agentOpts: {} },
    md,
  );
  return { sessionId, res };
}

const all = (sessionId: string) => collect(streamEvents(client, { sessionId, afterSeq: 0n }, md));
const get = (sessionId: string) => call(client, (c) => c.getSession, { sessionId }, md);

describe('child process faults', () => {
  it('a crash becomes SESSION_FAILED with the exit code and the tail of stderr', async () => {
    const { sessionId } = await start('exit3');
    const { events } = await all(sessionId);
    const last = events.at(-1)!;
    expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
    expect(last.error).toBe('agent exited with code 3');
    expect(last.data).toMatchObject({ exit_code: 3, reason: 'crashed' });
    expect((last.data as { stderr_tail: string }).stderr_tail).toContain(
      'fatal: something went wrong',
    );
    const s = await get(sessionId);
    expect(s).toMatchObject({
      status: SessionStatus.SESSION_STATUS_FAILED,
      exitCode: 3,
      error: 'agent exited with code 3',
    });
    expect(isAlive(daemon.pid)).toBe(true);
  });

  it('a child killed mid-session fails with its signal; the daemon is unaffected', async () => {
    const { sessionId } = await start('echo');
    const s = await get(sessionId);
    process.kill(s.pid, 'SIGKILL');
    const { events } = await all(sessionId);
    expect(events.at(-1)).toMatchObject({
      type: EventType.EVENT_TYPE_SESSION_FAILED,
      error: 'agent killed by SIGKILL',
    });
    expect((await get(sessionId)).exitSignal).toBe('SIGKILL');
    expect(isAlive(daemon.pid)).toBe(true);
  });

  it('a crash on input is reported after the input event', async () => {
    const { sessionId } = await start('crash');
    await call(client, (c) => c.sendInput, { sessionId, text: 'boom', idempotencyKey: '' }, md);
    const { events } = await all(sessionId);
    expect(events.map((e) => e.type).slice(-2)).toEqual([
      EventType.EVENT_TYPE_STDERR,
      EventType.EVENT_TYPE_SESSION_FAILED,
    ]);
    expect(events.at(-1)?.data).toMatchObject({ exit_code: 7 });
  });

  it('a child that ignores SIGTERM is killed at the grace bound, grandchild too', async () => {
    const { sessionId } = await start('stubborn');
    const { pid } = await get(sessionId);
    await waitFor(() => groupMembers(pid).length >= 2);
    expect(groupMembers(pid).length).toBeGreaterThanOrEqual(2);
    const stopped = await call(client, (c) => c.stopSession, { sessionId, force: false }, md);
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    expect(await waitFor(() => groupMembers(pid).length === 0, 3000)).toBe(true);
    const { events } = await all(sessionId);
    expect(events.some((e) => e.text === 'ignoring SIGTERM')).toBe(true);
    expect(events.at(-1)?.data).toMatchObject({ reason: 'stop_requested', signal: 'SIGKILL' });
  });

  it('force stop kills at once', async () => {
    const { sessionId } = await start('stubborn');
    const { pid } = await get(sessionId);
    await call(client, (c) => c.stopSession, { sessionId, force: true }, md);
    expect(groupMembers(pid)).toEqual([]);
    expect((await all(sessionId)).events.at(-1)?.data).toMatchObject({ signal: 'SIGKILL' });
  });

  it('a grandchild left behind by an exiting agent is killed with its group', async () => {
    const { sessionId } = await start('orphaner');
    const { events } = await all(sessionId);
    const grandchild = Number(/grandchild (\d+)/.exec(events.map((e) => e.text).join('\n'))?.[1]);
    expect(grandchild).toBeGreaterThan(1);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    expect(await waitFor(() => !isAlive(grandchild), 3000)).toBe(true);
  });

  it('splits output into lines exactly: joined writes, U+FFFD, 64 KiB pieces, final partial line', async () => {
    const { sessionId } = await start('split');
    const { events } = await all(sessionId);
    const out = events
      .filter((e) => e.type === EventType.EVENT_TYPE_STDOUT)
      .map((e) => [e.text, e.data]);
    expect(out).toEqual([
      ['ready', undefined],
      ['abcdef', undefined],
      ['ok\ufffd\ufffd', undefined],
      ['L'.repeat(65536), { continued: true }],
      ['L'.repeat(70000 - 65536), undefined],
      ['partial-without-newline', undefined],
    ]);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
  });

  it('input to an agent that closed its stdin is FAILED_PRECONDITION and nothing is recorded (EPIPE never reaches the daemon)', async () => {
    const { sessionId } = await start('closed');
    const before = await get(sessionId);
    for (let i = 0; i < 5; i++) {
      const code = await codeOf(
        call(
          client,
          (c) => c.sendInput,
          { sessionId, text: 'x'.repeat(60_000), idempotencyKey: '' },
          md,
        ),
      );
      expect([status.FAILED_PRECONDITION, 'ok']).toContain(code);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(
      await codeOf(
        call(client, (c) => c.sendInput, { sessionId, text: 'more', idempotencyKey: '' }, md),
      ),
    ).toBe(status.FAILED_PRECONDITION);
    expect(isAlive(daemon.pid)).toBe(true);
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(Number((await get(sessionId)).lastSeq)).toBeGreaterThanOrEqual(Number(before.lastSeq));
    await call(client, (c) => c.stopSession, { sessionId, force: true }, md);
  });

  it('input after the agent exited is FAILED_PRECONDITION', async () => {
    const { sessionId } = await start('exit3');
    await all(sessionId);
    expect(
      await codeOf(
        call(client, (c) => c.sendInput, { sessionId, text: 'late', idempotencyKey: '' }, md),
      ),
    ).toBe(status.FAILED_PRECONDITION);
  });

  it('a missing binary is FAILED_PRECONDITION, shown in Health, and signals nothing to the daemon', async () => {
    const before = descendants(daemon.pid).length;
    const sessionId = randomUUID();
    const err = await call(
      client,
      (c) => c.startSession,
      { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider: 'missing', agentOpts: {} },
      md,
    ).catch((e) => e);
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(err.details).toContain('/nonexistent/agent-cli');
    expect(await codeOf(get(sessionId))).toBe(status.NOT_FOUND);
    const health = await call(client, (c) => c.health, {}, md);
    expect(health.providers.find((p) => p.provider === 'missing')).toMatchObject({
      available: false,
    });
    expect(health.status).toBe('serving');
    expect(isAlive(daemon.pid)).toBe(true);
    expect(descendants(daemon.pid).length).toBe(before);
  });

  it('startup_timeout fails a session whose agent never becomes ready, and kills it', async () => {
    const { sessionId, res } = await start('slow');
    expect(res.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    const s = await get(sessionId);
    expect(s.error).toMatch(/startup timeout|startup_timeout/);
    expect(await waitFor(() => !isAlive(s.pid), 3000)).toBe(true);
    const { events } = await all(sessionId);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
  });

  it('idempotency keys return the first seq and write nothing again', async () => {
    const { sessionId } = await start('echo');
    const a = await call(
      client,
      (c) => c.sendInput,
      { sessionId, text: 'once', idempotencyKey: 'k1' },
      md,
    );
    const b = await call(
      client,
      (c) => c.sendInput,
      { sessionId, text: 'once', idempotencyKey: 'k1' },
      md,
    );
    expect(b.seq).toBe(a.seq);
    await waitFor(async () => (await all0(sessionId)).some((t) => t === 'echo: once'));
    await new Promise((r) => setTimeout(r, 200));
    const texts = await all0(sessionId);
    expect(texts.filter((t) => t === 'echo: once')).toHaveLength(1);
    await call(client, (c) => c.stopSession, { sessionId, force: true }, md);
  });
});

async function all0(sessionId: string): Promise<string[]> {
  const s = await get(sessionId);
  const r = await collect(
    streamEvents(client, { sessionId, afterSeq: 0n }, md),
    (_e, evs) => evs.length >= Number(s.lastSeq),
  );
  return r.events.map((e) => e.text);
}

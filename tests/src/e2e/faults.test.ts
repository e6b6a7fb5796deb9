import { randomUUID } from 'node:crypto';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import {
  codeOf,
  collect,
  descendants,
  groupMembers,
  isAlive,
  status,
  useDaemon,
  waitFor,
} from '../harness/index.js';

const bridge = useDaemon({
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

async function start(provider: string) {
  const { sessionId, started: res } = await bridge.sessions().start(provider);
  return { sessionId, res };
}

const all = (sessionId: string) => collect(bridge.stream({ sessionId, afterSeq: 0n }));
const get = (sessionId: string) => bridge.call((c) => c.getSession, { sessionId });

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
    expect(isAlive(bridge.daemon.pid)).toBe(true);
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
    expect(isAlive(bridge.daemon.pid)).toBe(true);
  });

  it('a crash on input is reported after the input event', async () => {
    const { sessionId } = await start('crash');
    await bridge.call((c) => c.sendInput, { sessionId, text: 'boom', idempotencyKey: '' });
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
    await waitFor('the agent and its grandchild in its group', () => groupMembers(pid).length >= 2);
    const stopped = await bridge.call((c) => c.stopSession, { sessionId, force: false });
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    await waitFor(`process group ${pid} to be gone`, () => groupMembers(pid).length === 0, 3000);
    const { events } = await all(sessionId);
    expect(events.some((e) => e.text === 'ignoring SIGTERM')).toBe(true);
    expect(events.at(-1)?.data).toMatchObject({ reason: 'stop_requested', signal: 'SIGKILL' });
  });

  it('force stop kills at once', async () => {
    const { sessionId } = await start('stubborn');
    const { pid } = await get(sessionId);
    await waitFor('the agent and its grandchild in its group', () => groupMembers(pid).length >= 2);
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
    // StopSession returns once the agent has exited; the SIGKILL to the rest
    // of its group is sent but may not have been acted on yet.
    expect(isAlive(pid)).toBe(false);
    await waitFor(`process group ${pid} to be gone`, () => groupMembers(pid).length === 0, 3000);
    const { events } = await all(sessionId);
    expect(events.at(-1)?.data).toMatchObject({ signal: 'SIGKILL' });
    // No SIGTERM first: the agent, which reports each SIGTERM, reported none.
    expect(events.some((e) => e.text === 'ignoring SIGTERM')).toBe(false);
  });

  it('a grandchild left behind by an exiting agent is killed with its group', async () => {
    const { sessionId } = await start('orphaner');
    const { events } = await all(sessionId);
    const grandchild = Number(/grandchild (\d+)/.exec(events.map((e) => e.text).join('\n'))?.[1]);
    expect(grandchild).toBeGreaterThan(1);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    await waitFor(`grandchild ${grandchild} to be killed`, () => !isAlive(grandchild), 3000);
  });

  it('splits output into lines exactly: joined writes, U+FFFD, 64 KiB pieces, final partial line', async () => {
    const { sessionId } = await start('split');
    const { events } = await all(sessionId);
    const out = events
      .filter((e) => e.type === EventType.EVENT_TYPE_STDOUT)
      .map((e) => [e.text, e.data]);
    expect(out).toHaveLength(6);
    expect(out.slice(0, 3)).toEqual([
      ['ready', undefined],
      ['abcdef', undefined],
      ['ok\ufffd\ufffd', undefined],
    ]);
    // The 70,000-byte line arrives as a continued piece and its last piece.
    // Redaction holds back the end of a piece and stores it at the front of
    // the next one (internal/bridge/README.md, "Redaction"), so the pieces
    // join to the line but need not be cut at 64 KiB.
    const long = out.slice(3, 5);
    expect(long.map(([, data]) => data)).toEqual([{ continued: true }, undefined]);
    expect(long.map(([text]) => text).join('')).toBe('L'.repeat(70000));
    expect(out[5]).toEqual(['partial-without-newline', undefined]);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
  });

  it('input to an agent that closed its stdin is FAILED_PRECONDITION and records nothing; the EPIPE never reaches the daemon', async () => {
    const { sessionId } = await start('closed');
    // The shell closed its stdin before it printed "ready": the session runs
    // with an input that nobody reads.
    const before = await get(sessionId);
    expect(before.lastSeq).toBe(2n); // SESSION_STARTED, "ready"
    const send = (text: string) =>
      codeOf(bridge.call((c) => c.sendInput, { sessionId, text, idempotencyKey: '' }));
    // The first write finds the pipe closed (EPIPE at once), so even the
    // first input is refused before anything is recorded; so is every later one.
    for (let i = 0; i < 5; i++) {
      expect(await send('x'.repeat(60_000))).toBe(status.FAILED_PRECONDITION);
    }
    expect(await send('more')).toBe(status.FAILED_PRECONDITION);
    expect(isAlive(bridge.daemon.pid)).toBe(true);
    const after = await get(sessionId);
    expect(after.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(after.lastSeq).toBe(before.lastSeq);
    const { events } = await collect(
      bridge.stream({ sessionId, afterSeq: 0n }),
      (_e, all) => all.length === Number(after.lastSeq),
    );
    expect(events.map((e) => [e.type, e.text])).toEqual([
      [EventType.EVENT_TYPE_SESSION_STARTED, expect.any(String)],
      [EventType.EVENT_TYPE_STDOUT, 'ready'],
    ]);
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });

  it('input after the agent exited is FAILED_PRECONDITION', async () => {
    const { sessionId } = await start('exit3');
    await all(sessionId);
    expect(
      await codeOf(
        bridge.call((c) => c.sendInput, { sessionId, text: 'late', idempotencyKey: '' }),
      ),
    ).toBe(status.FAILED_PRECONDITION);
  });

  it('a missing binary is FAILED_PRECONDITION, shown in Health, and signals nothing to the daemon', async () => {
    const before = descendants(bridge.daemon.pid).length;
    const sessionId = randomUUID();
    const err = await bridge
      .call((c) => c.startSession, {
        projectId: 'alpha',
        sessionId,
        repoPath: bridge.daemon.repo,
        provider: 'missing',
        agentOpts: {},
      })
      .catch((e) => e);
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(err.details).toContain('/nonexistent/agent-cli');
    expect(await codeOf(get(sessionId))).toBe(status.NOT_FOUND);
    const health = await bridge.call((c) => c.health, {});
    expect(health.providers.find((p) => p.provider === 'missing')).toMatchObject({
      available: false,
    });
    expect(health.status).toBe('serving');
    expect(isAlive(bridge.daemon.pid)).toBe(true);
    expect(descendants(bridge.daemon.pid).length).toBe(before);
  });

  it('startup_timeout fails a session whose agent never becomes ready, and kills it', async () => {
    const { sessionId, res } = await start('slow');
    expect(res.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    const s = await get(sessionId);
    expect(s.error).toMatch(/startup timeout|startup_timeout/);
    await waitFor(`agent ${s.pid} to be killed`, () => !isAlive(s.pid), 3000);
    const { events } = await all(sessionId);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
  });

  it('idempotency keys return the first seq and write nothing again', async () => {
    const { sessionId } = await start('echo');
    const a = await bridge.call((c) => c.sendInput, {
      sessionId,
      text: 'once',
      idempotencyKey: 'k1',
    });
    const b = await bridge.call((c) => c.sendInput, {
      sessionId,
      text: 'once',
      idempotencyKey: 'k1',
    });
    expect(b.seq).toBe(a.seq);
    // The echo agent answers in order: once the echo of a later input is in,
    // a second write of "once" would have been echoed before it.
    await bridge.call((c) => c.sendInput, { sessionId, text: 'marker', idempotencyKey: '' });
    const { events } = await collect(
      bridge.stream({ sessionId, afterSeq: 0n }),
      (e) => e.text === 'echo: marker',
    );
    const texts = events.map((e) => e.text);
    expect(texts.filter((t) => t === 'echo: once')).toHaveLength(1);
    expect(
      events.filter((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED).map((e) => e.text),
    ).toEqual(['once', 'marker']);
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });
});

/**
 * F7 and F8: input that cannot be delivered. An agent that closed its
 * stdin, an agent that exited, and an agent killed while 1 MB of input is
 * still queued for it (the pending write fails with EPIPE): each is a
 * FAILED_PRECONDITION or a clean failure of the session, never a crash of
 * the daemon.
 */

import { codeOf, collect, isAlive, status, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;

const bridge = useDaemon({
  config: {
    input: { max_size_bytes: 2 * MiB },
    providers: {
      // A shell that really closes its stdin (exec 0<&-), then keeps running.
      closed: {
        binary: '/bin/sh',
        args: ['-c', 'exec 0<&-; echo ready; exec sleep 1000'],
        ready_pattern: '^ready$',
      },
      // Keeps its stdin open but never reads it: input piles up in the pipe and behind it.
      deaf: {
        binary: '/bin/sh',
        args: ['-c', 'echo ready; exec sleep 1000'],
        ready_pattern: '^ready$',
      },
    },
  },
  fakeProviders: { exit0: ['exit', '0'] },
});

const get = (sessionId: string) => bridge.call((c) => c.getSession, { sessionId });
const send = (sessionId: string, text: string) =>
  codeOf(bridge.call((c) => c.sendInput, { sessionId, text, idempotencyKey: '' }));

/** The daemon is the same process and still answers. */
async function daemonUnharmed(pid: number) {
  expect(bridge.daemon.pid).toBe(pid);
  expect(isAlive(pid)).toBe(true);
  expect((await bridge.call((c) => c.health, {})).status).toBe('serving');
  expect(bridge.daemon.output()).not.toMatch(/uncaught|unhandled/i);
}

describe('F7 an agent that closed its stdin', () => {
  it('F7 input is FAILED_PRECONDITION and records nothing; the EPIPE never reaches the daemon', async () => {
    const pid = bridge.daemon.pid;
    const { sessionId } = await bridge.sessions().start('closed');
    // The shell closed its stdin before it printed "ready": the session runs
    // with an input that nobody reads.
    const before = await get(sessionId);
    expect(before.lastSeq).toBe(2n); // SESSION_STARTED, "ready"
    // The first write finds the pipe closed (EPIPE at once), so even the
    // first input is refused before anything is recorded; so is every later one.
    for (let i = 0; i < 5; i++) {
      expect(await send(sessionId, 'x'.repeat(60_000))).toBe(status.FAILED_PRECONDITION);
    }
    expect(await send(sessionId, 'more')).toBe(status.FAILED_PRECONDITION);
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
    await daemonUnharmed(pid);
  });
});

describe('F8 input for an agent that is gone', () => {
  it('F8 1 MB of input after the agent exited is FAILED_PRECONDITION', async () => {
    const pid = bridge.daemon.pid;
    const { sessionId } = await bridge.sessions().start('exit0');
    await collect(bridge.stream({ sessionId, afterSeq: 0n }));
    const { lastSeq } = await get(sessionId);
    expect(await send(sessionId, 'x'.repeat(MiB))).toBe(status.FAILED_PRECONDITION);
    expect((await get(sessionId)).lastSeq).toBe(lastSeq);
    await daemonUnharmed(pid);
  });

  it('F8 an agent killed with 1 MB of input still queued for it: the pending write fails quietly', async () => {
    const pid = bridge.daemon.pid;
    const s = await bridge.sessions().start('deaf');
    // Accepted: the pipe is open; it holds 64 KiB, the rest waits in the daemon.
    expect(await send(s.sessionId, 'y'.repeat(MiB))).toBe('ok');
    const agent = (await s.get()).pid;
    process.kill(agent, 'SIGKILL');
    await waitFor(
      'the session to fail',
      async () => (await s.get()).status === SessionStatus.SESSION_STATUS_FAILED,
    );
    expect((await s.get()).exitSignal).toBe('SIGKILL');
    expect(await send(s.sessionId, 'z'.repeat(MiB))).toBe(status.FAILED_PRECONDITION);
    await daemonUnharmed(pid);
  });
});

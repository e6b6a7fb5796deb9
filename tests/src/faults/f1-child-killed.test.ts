/**
 * F1: the agent is killed with SIGKILL while a subscriber is reading it.
 * The session fails with the signal, the reader gets the terminal event,
 * and the daemon is left as it was: same pid, no zombie, no descriptor kept.
 */

import {
  fdCount,
  isAlive,
  useDaemon,
  waitFor,
  watchEvents,
  zombiesUnder,
} from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon({ fakeProviders: { echo: ['echo'] } });

describe('F1 an agent killed with SIGKILL mid-stream', () => {
  it('F1 fails the session with signal SIGKILL, ends the reader with it, and leaves the daemon as it was', async () => {
    const { daemon } = bridge;
    const pid = daemon.pid;
    // The client's connection is up before the baseline, so it is counted in it.
    await bridge.call((c) => c.health, {});
    const baseline = fdCount(pid);
    const s = await bridge.sessions().start('echo');
    const reader = watchEvents(bridge.stream({ sessionId: s.sessionId, afterSeq: 0n }));
    await s.send('one');
    await reader.until('the echo of "one"', (all) => all.some((e) => e.text === 'echo: one'));
    const agent = (await s.get()).pid;

    process.kill(agent, 'SIGKILL');

    const { events, error } = await reader.ended();
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({
      type: EventType.EVENT_TYPE_SESSION_FAILED,
      error: 'agent killed by SIGKILL',
      done: true,
    });
    expect(events.at(-1)?.data).toMatchObject({ signal: 'SIGKILL' });
    expect(await s.get()).toMatchObject({
      status: SessionStatus.SESSION_STATUS_FAILED,
      exitSignal: 'SIGKILL',
    });
    expect(daemon.pid).toBe(pid);
    expect(isAlive(pid)).toBe(true);
    expect(daemon.proc.exitCode).toBeNull();
    expect(isAlive(agent)).toBe(false);
    expect(zombiesUnder(pid)).toEqual([]);
    // The agent's pipes are closed once its output is drained: wait for it.
    await waitFor(
      () => `the daemon's fd count back to ${baseline} (now ${fdCount(pid)})`,
      () => fdCount(pid) <= baseline,
    );
    expect((await bridge.call((c) => c.health, {})).status).toBe('serving');
  });
});

/**
 * F2: an agent that ignores SIGTERM and has a grandchild doing the same.
 * StopSession sends SIGTERM to the group, then SIGKILL once the grace
 * period is over; nothing of the group survives. Also: a forced stop kills
 * at once, and a grandchild left behind by an agent that exits on its own
 * dies with the group.
 */

import { collect, groupMembers, isAlive, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon({
  config: { sessions: { stop_grace_period: '600ms' } },
  fakeProviders: { stubborn: ['ignore-term'], orphaner: ['grandchild-exit'] },
});

const all = (sessionId: string) => collect(bridge.stream({ sessionId, afterSeq: 0n }));
const grandchildOf = (events: SessionEvent[]) =>
  Number(/grandchild (\d+)/.exec(events.map((e) => e.text).join('\n'))?.[1]);

/** A stubborn agent, running with its grandchild in its group. */
async function stubborn() {
  const s = await bridge.sessions().start('stubborn');
  const { pid } = await s.get();
  await waitFor('the agent and its grandchild in its group', () => groupMembers(pid).length >= 2);
  return { ...s, pid };
}

describe('F2 an agent that ignores SIGTERM, with a grandchild', () => {
  it('F2 is sent SIGTERM, then SIGKILL at the grace period; its whole group is gone', async () => {
    const s = await stubborn();
    const members = groupMembers(s.pid);
    const stopped = await s.stop(false);
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    // StopSession returns once the leader exited; the rest of the group was
    // sent SIGKILL with it.
    await waitFor(
      () => `process group ${s.pid} to be gone (left: ${groupMembers(s.pid).join(' ')})`,
      () => groupMembers(s.pid).length === 0,
      3000,
    );
    const { events } = await all(s.sessionId);
    const grandchild = grandchildOf(events);
    expect(members).toContain(grandchild);
    expect(isAlive(grandchild)).toBe(false);
    // The order shows the escalation: the agent saw the SIGTERM (and stayed),
    // and what ended it was the SIGKILL that followed.
    const term = events.findIndex((e) => e.text === 'ignoring SIGTERM');
    expect(term).toBeGreaterThan(0);
    const last = events.at(-1)!;
    expect(events.indexOf(last)).toBeGreaterThan(term);
    expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    expect(last.data).toMatchObject({ reason: 'stop_requested', signal: 'SIGKILL' });
    expect((await s.get()).exitSignal).toBe('SIGKILL');
  });

  it('F2 a forced stop sends SIGKILL at once, no SIGTERM first', async () => {
    const s = await stubborn();
    await s.stop(true);
    expect(isAlive(s.pid)).toBe(false);
    await waitFor(
      `process group ${s.pid} to be gone`,
      () => groupMembers(s.pid).length === 0,
      3000,
    );
    const { events } = await all(s.sessionId);
    expect(events.at(-1)?.data).toMatchObject({ signal: 'SIGKILL' });
    // The agent reports every SIGTERM it gets: it reported none.
    expect(events.some((e) => e.text === 'ignoring SIGTERM')).toBe(false);
  });

  it('F2 a grandchild left behind by an agent that exits on its own is killed with its group', async () => {
    const s = await bridge.sessions().start('orphaner');
    const { events } = await all(s.sessionId);
    const grandchild = grandchildOf(events);
    expect(grandchild).toBeGreaterThan(1);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    await waitFor(`grandchild ${grandchild} to be killed`, () => !isAlive(grandchild), 3000);
  });
});

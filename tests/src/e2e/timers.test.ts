import { codeOf, collect, status, useDaemon, waitFor, watchEvents } from '@agent-bridge/harness';
import { SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

// sessions.idle_timeout, sessions.retention and sessions.subscriber_ttl, set short.
const bridge = useDaemon({
  config: { sessions: { idle_timeout: '800ms', retention: '1500ms', subscriber_ttl: '1s' } },
  fakeProviders: { echo: ['echo'] },
});

const start = async () => (await bridge.sessions().start('echo')).sessionId;

const get = (sessionId: string) => bridge.call((c) => c.getSession, { sessionId });
const stoppedBy = async (sessionId: string) => {
  await waitFor(
    `session ${sessionId} to stop`,
    async () => (await get(sessionId)).status === SessionStatus.SESSION_STATUS_STOPPED,
  );
  const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }));
  return events.at(-1);
};
const freed = (sessionId: string) =>
  waitFor(
    `session ${sessionId} to be freed`,
    async () => (await codeOf(get(sessionId))) === status.NOT_FOUND,
  );

describe('session timers', () => {
  // Reaping an idle session itself: tests/src/faults/f13-idle-reaping.test.ts.
  it('an open subscriber keeps a session from going idle', async () => {
    const watched = await start();
    const reader = watchEvents(bridge.stream({ sessionId: watched }));
    await reader.until('the reader to see the agent ready', (all) =>
      all.some((e) => e.text === 'ready'),
    );
    // A second session, started after the reader's last event and without a
    // reader: once it has gone idle, so has the watched one, but for its reader.
    const control = await start();
    expect(await stoppedBy(control)).toMatchObject({ data: { reason: 'idle_timeout' } });
    expect((await get(watched)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    reader.cancel();
    expect((await reader.ended()).error).toBeUndefined();
  });

  it('a stopped session stays readable for the retention period, then is freed', async () => {
    const sessionId = await start();
    await bridge.call((c) => c.stopSession, { sessionId, force: false });
    expect(await codeOf(get(sessionId))).toBe('ok');
    await freed(sessionId);
    const list = await bridge.call((c) => c.listSessions, {
      projectId: '',
      statuses: [],
      pageSize: 0,
      pageToken: '',
    });
    expect(list.sessions.map((s) => s.sessionId)).not.toContain(sessionId);
  });

  it('an idle subscriber cursor expires after subscriber_ttl', async () => {
    const sessionId = await start();
    // An anonymous reader keeps the session from going idle while the cursor ages out.
    const keeper = watchEvents(bridge.stream({ sessionId }));
    await keeper.until('the anonymous reader to be reading', (all) => all.length > 0);
    await bridge.call((c) => c.sendInput, { sessionId, text: 'x', idempotencyKey: '' });
    await bridge.call((c) => c.ackEvents, {
      sessionId,
      subscriberId: 'cp',
      ackSeq: 2n,
      historyId: '',
    });
    const resumed = await collect(bridge.stream({ sessionId, subscriberId: 'cp' }), () => true);
    expect(Number(resumed.events[0]?.seq)).toBe(3);
    // The cursor was last touched when that reader closed.
    await waitFor(
      "the daemon to close the cursor's reader",
      async () => (await get(sessionId)).subscriberCount === 1,
    );
    // Another session stopped after that is freed after `retention` (1.5 s),
    // longer than `subscriber_ttl` (1 s): by then the cursor has expired.
    const clock = await start();
    await bridge.call((c) => c.stopSession, { sessionId: clock, force: false });
    await freed(clock);
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    const expired = await collect(bridge.stream({ sessionId, subscriberId: 'cp' }), () => true);
    expect(Number(expired.events[0]?.seq)).toBe(1);
    keeper.cancel();
    await keeper.ended();
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });
});

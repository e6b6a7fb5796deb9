/**
 * F12: a daemon restart. On its store, a stopped daemon comes back with
 * its sessions, events and cursors: the same history, every event under
 * its seq, a subscriber resuming after its ack. With a new store in its
 * place (the store wiped), every call about an old session, reading from
 * an old cursor included, is NOT_FOUND: never an empty stream that looks
 * healthy.
 */

import { type Bridge, codeOf, collect, startBridge, status } from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { afterEach, describe, expect, it } from 'vitest';

const bridges: Bridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) {
    b.client.close();
    if (b.daemon.proc.exitCode === null) await b.daemon.stop();
  }
});

/** A session with one echoed input, read and acked up to the echo by `cp`; then the daemon stopped. */
async function stoppedWithASession() {
  const before = await startBridge({ fakeProviders: { echo: ['echo'] } });
  bridges.push(before);
  const s = await before.sessions().start('echo');
  await s.send('one');
  const { events } = await collect(
    before.stream({ sessionId: s.sessionId, subscriberId: 'cp' }),
    (e) => e.text === 'echo: one',
  );
  const seen = events.at(-1)!.seq;
  const health = await before.call((c) => c.health, {});
  await before.call((c) => c.ackEvents, {
    sessionId: s.sessionId,
    subscriberId: 'cp',
    ackSeq: seen,
    historyId: health.historyId,
  });
  expect(await before.daemon.stop({ keepDir: true })).toBe(0);
  return { before, sessionId: s.sessionId, seen, health, events };
}

describe('F12 a daemon restart', () => {
  it('F12 on its store: the same history, every event under its seq, the cursor kept', async () => {
    const { before, sessionId, seen, health, events } = await stoppedWithASession();
    // The same PKI, tokens and directory (config, store): the daemon came back.
    const after = await startBridge({
      pki: before.pki,
      dir: before.daemon.dir,
      fakeProviders: { echo: ['echo'] },
    });
    bridges.push(after);
    const now = await after.call((c) => c.health, {});
    expect(now.historyId).toBe(health.historyId);
    expect(now.serverInstanceId).not.toBe(health.serverInstanceId);
    // The shutdown stopped the session; its end was kept with the rest.
    const got = await after.call((c) => c.getSession, { sessionId });
    expect(got.lastSeq).toBeGreaterThan(seen);
    expect(got.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    const all = await collect(after.stream({ sessionId, afterSeq: 0n }));
    expect(all.error).toBeUndefined();
    expect(all.events.slice(0, events.length)).toEqual(events);
    expect(all.events.map((e) => Number(e.seq))).toEqual(all.events.map((_, i) => i + 1));
    expect(all.events.at(-1)).toMatchObject({
      type: EventType.EVENT_TYPE_SESSION_STOPPED,
      data: { reason: 'shutdown' },
    });
    // The subscriber resumes right after its ack.
    const resumed = await collect(after.stream({ sessionId, subscriberId: 'cp' }));
    expect(resumed.events.map((e) => e.seq)).toEqual(
      all.events.map((e) => e.seq).filter((q) => q > seen),
    );
  });

  it('F12 with a new store: an old session and its cursor are NOT_FOUND, streams included', async () => {
    const { before, sessionId, seen, health } = await stoppedWithASession();
    const after = await startBridge({ pki: before.pki, fakeProviders: { echo: ['echo'] } });
    bridges.push(after);
    expect((await after.call((c) => c.health, {})).historyId).not.toBe(health.historyId);
    for (const req of [
      { sessionId, afterSeq: seen },
      { sessionId, subscriberId: 'cp' },
      { sessionId, afterSeq: 0n },
    ]) {
      const r = await collect(after.stream(req));
      expect(
        r.error?.code,
        JSON.stringify(req, (_k, v) => String(v)),
      ).toBe(status.NOT_FOUND);
      expect(r.events).toEqual([]);
    }
    const unary = [
      after.call((c) => c.getSession, { sessionId }),
      after.call((c) => c.ackEvents, {
        sessionId,
        subscriberId: 'cp',
        ackSeq: seen,
        historyId: '',
      }),
      after.call((c) => c.sendInput, { sessionId, text: 'two', idempotencyKey: '' }),
      after.call((c) => c.stopSession, { sessionId, force: false }),
    ];
    for (const call of unary) expect(await codeOf(call)).toBe(status.NOT_FOUND);
  });
});

/**
 * F12: sessions and cursors live only as long as the daemon. After a
 * restart, every call about an old session, reading from an old cursor
 * included, is NOT_FOUND: never an empty stream that looks healthy.
 */

import { type Bridge, codeOf, collect, startBridge, status } from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';

describe('F12 a daemon restart', () => {
  it('F12 an old session and its cursor are NOT_FOUND on the restarted daemon, streams included', async () => {
    const bridges: Bridge[] = [];
    try {
      const before = await startBridge({ fakeProviders: { echo: ['echo'] } });
      bridges.push(before);
      const s = await before.sessions().start('echo');
      await s.send('one');
      const { events } = await collect(
        before.stream({ sessionId: s.sessionId, subscriberId: 'cp' }),
        (e) => e.text === 'echo: one',
      );
      const seen = events.at(-1)!.seq;
      await before.call((c) => c.ackEvents, {
        sessionId: s.sessionId,
        subscriberId: 'cp',
        ackSeq: seen,
        historyId: '',
      });
      const oldInstance = (await before.call((c) => c.health, {})).serverInstanceId;
      expect(await before.daemon.stop()).toBe(0);

      // The same PKI and tokens: to the client, the daemon came back.
      const after = await startBridge({ pki: before.pki, fakeProviders: { echo: ['echo'] } });
      bridges.push(after);
      expect((await after.call((c) => c.health, {})).serverInstanceId).not.toBe(oldInstance);
      const sessionId = s.sessionId;
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
    } finally {
      for (const b of bridges) {
        b.client.close();
        if (b.daemon.proc.exitCode === null) await b.daemon.stop();
      }
    }
  });
});

/**
 * A SendInput retried across a daemon restart: the control plane sent an
 * input with an idempotency key, the daemon was killed before the control
 * plane saw the answer, and it sends the same input again to the daemon
 * started on its store. The retry is answered with the seq of the first
 * and the agent gets the input once.
 */
import { type Bridge, bridgesOfEachTest, startBridge, within } from '@agent-bridge/harness';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridges = bridgesOfEachTest();

describe('an input retried across a daemon restart', () => {
  it('is answered with the seq it was first accepted with, and delivered once', async () => {
    const first = await startBridge();
    bridges.push(first);
    const s = await first.sessions().start('mock');
    const send = (b: Bridge) =>
      b.call((c) => c.sendInput, {
        sessionId: s.sessionId,
        text: 'only once',
        idempotencyKey: 'msg-42',
      });
    const { seq } = await send(first);
    await s.events((all) => all.some((e) => e.type === EventType.EVENT_TYPE_TURN_COMPLETED));
    first.daemon.proc.kill('SIGKILL');
    await within('the daemon to die', first.daemon.exited, 20_000);

    const again = await startBridge({ pki: first.pki, dir: first.daemon.dir });
    bridges.push(again);
    const resumed = again.sessions().session(s.sessionId);
    await resumed.events((all) => all.some((e) => e.type === EventType.EVENT_TYPE_SESSION_RESUMED));
    expect((await send(again)).seq).toBe(seq);
    await resumed.stop();
    // To its end: one INPUT_RECEIVED, the first, and no second turn.
    const all = await resumed.events();
    const inputs = all.filter((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED);
    expect(inputs.map((e) => [e.seq, e.text])).toEqual([[seq, 'only once']]);
    expect(all.filter((e) => e.type === EventType.EVENT_TYPE_TURN_STARTED)).toHaveLength(1);
  });
});

import { collect, useDaemon } from '@agent-bridge/harness';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon({ fakeProviders: { echo: ['echo'] } });

describe('SendInput idempotency keys', () => {
  it('idempotency keys return the first seq and write nothing again', async () => {
    const { sessionId } = await bridge.sessions().start('echo');
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

import { type BridgeEvent, EventSlice } from '@agent-bridge/bridge';
import { SessionEvent, SessionEventBatch } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { toProtoEvent } from './convert.js';
import { batchMessage, eventMessage, sessionSuffix, wireEventCodec } from './event-wire.js';

const SESSION = {
  sessionId: '0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e',
  projectId: 'alpha',
  provider: 'claude',
};

function ev(seq: number, text: string, more: Partial<BridgeEvent> = {}): BridgeEvent {
  return {
    seq,
    timestamp: 1_790_000_000_123,
    ...SESSION,
    type: 'STDOUT',
    stream: 'stdout',
    text,
    done: false,
    error: '',
    turnId: '',
    data: undefined,
    ...more,
  };
}

const EVENTS = [
  ev(1, 'hello'),
  ev(2, 'x'.repeat(20_000)), // a length that takes a three-byte varint
  ev(300, '', {
    type: 'SESSION_FAILED',
    stream: 'system',
    done: true,
    error: 'agent exited with code 3',
    turnId: 't-1',
    data: { exit_code: 3, nested: { list: [1, 'two', true] } },
  }),
];

describe('event wire encoding', () => {
  const codec = wireEventCodec();
  /** A copy: the codec's output is a view of a buffer its next call reuses. */
  const encode = (e: BridgeEvent) => Buffer.from(codec.encode(e));

  it('writes exactly what ts-proto writes for the same fields, identity left out', () => {
    const more: BridgeEvent[] = [
      ...EVENTS,
      ev(2 ** 40, 'ünïcödé ✓ 😀 and a very long line '.repeat(50)),
      ev(7, '', { timestamp: 1_790_000_000_000, stream: 'stderr', type: 'STDERR' }),
      ev(8, 'x', { type: 'AGENT_MESSAGE_DELTA', data: {} }),
    ];
    for (const e of more) {
      const reference = SessionEvent.encode(
        toProtoEvent({ ...e, sessionId: '', projectId: '', provider: '' }),
      ).finish();
      expect(encode(e).equals(Buffer.from(reference))).toBe(true);
    }
  });

  /** A slice whose events are `parts`, each at the start of a chunk of its own. */
  const sliceOf = (parts: Buffer[]) =>
    new EventSlice(
      1,
      { chunks: parts, starts: parts.map(() => 0), lengths: parts.map((p) => p.length) },
      false,
      codec,
      SESSION,
    );

  it('leaves the session identity out of what rings hold, and the suffix puts it back', () => {
    const suffix = sessionSuffix(SESSION);
    for (const e of EVENTS) {
      const part = encode(e);
      expect(Buffer.from(part).includes(Buffer.from(SESSION.sessionId))).toBe(false);
      expect(SessionEvent.decode(eventMessage(sliceOf([part]), 0, suffix))).toEqual(
        toProtoEvent(e),
      );
    }
  });

  it('frames stored parts as a SessionEventBatch that decodes to the same events', () => {
    const suffix = sessionSuffix(SESSION);
    const parts = EVENTS.map(encode);
    const batch = SessionEventBatch.decode(batchMessage(sliceOf(parts), suffix));
    expect(batch.events).toEqual(EVENTS.map(toProtoEvent));
    expect(SessionEventBatch.decode(batchMessage(sliceOf([]), suffix)).events).toEqual([]);
  });

  it('decodes what it encoded back to the core event', () => {
    for (const e of EVENTS) {
      expect(codec.decode(encode(e), SESSION)).toEqual(e);
    }
  });
});

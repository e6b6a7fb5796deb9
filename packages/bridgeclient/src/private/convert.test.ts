import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { eventFromWire, healthFromWire, seqFromWire, seqToWire, statusToWire } from './convert.js';

describe('convert', () => {
  it('turns seqs into numbers and back, refusing what is not a safe integer', () => {
    expect(seqFromWire(42n)).toBe(42);
    expect(() => seqFromWire(2n ** 53n)).toThrow(RangeError);
    expect(seqToWire(7, 'ackSeq')).toBe(7n);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => seqToWire(bad, 'ackSeq')).toThrow('ackSeq must be a non-negative safe integer');
    }
  });

  it('names event types and reads the missing range of an overflow', () => {
    const e = eventFromWire({
      seq: 9n,
      timestamp: new Date(1),
      sessionId: 's',
      projectId: 'p',
      provider: 'mock',
      type: EventType.EVENT_TYPE_BUFFER_OVERFLOW,
      stream: 'system',
      text: '5 events…',
      done: false,
      error: '',
      turnId: '',
      data: { first_missing: 5, last_missing: 9 },
    });
    expect(e).toMatchObject({ seq: 9, type: 'BUFFER_OVERFLOW', missing: { first: 5, last: 9 } });
  });

  it('maps statuses both ways and refuses an unknown one', () => {
    expect(statusToWire('RUNNING')).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(() => statusToWire('RUNNIN' as 'RUNNING')).toThrow('unknown session status');
  });

  it('computes the room left for the project from both limits', () => {
    const h = (active: number, limit: number, projectActive: number, projectLimit: number) =>
      healthFromWire({
        status: 'serving',
        providers: [],
        version: '1',
        serverInstanceId: 'i',
        historyId: 'h',
        startedAt: undefined,
        activeSessions: active,
        retainedSessions: 0,
        sessionLimit: limit,
        projectActiveSessions: projectActive,
        projectSessionLimit: projectLimit,
      }).freeCapacity;
    expect(h(3, 20, 1, 5)).toBe(4);
    expect(h(18, 20, 1, 5)).toBe(2);
    expect(h(20, 20, 0, 5)).toBe(0);
  });
});

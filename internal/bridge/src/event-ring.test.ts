import { describe, expect, it } from 'vitest';
import { type BridgeEvent, EVENT_OVERHEAD_BYTES, eventBytes } from './event.js';
import { EventRing } from './event-ring.js';

function ev(seq: number, text = `line ${seq}`): BridgeEvent {
  return {
    seq,
    timestamp: 0,
    sessionId: 's',
    projectId: 'p',
    provider: 'mock',
    type: 'STDOUT',
    stream: 'stdout',
    text,
    done: false,
    error: '',
    turnId: '',
    data: undefined,
  };
}

describe('EventRing', () => {
  it('is empty at first', () => {
    const r = new EventRing(4, 1 << 20);
    expect([r.oldestSeq, r.lastSeq, r.size]).toEqual([0, 0, 0]);
    expect(r.get(1)).toBeUndefined();
    expect(r.slice(1, 10)).toEqual([]);
  });

  it('evicts the oldest events beyond the count bound', () => {
    const r = new EventRing(4, 1 << 20);
    for (let i = 1; i <= 10; i++) r.push(ev(i));
    expect([r.oldestSeq, r.lastSeq, r.size]).toEqual([7, 10, 4]);
    expect(r.get(6)).toBeUndefined();
    expect(r.get(7)?.seq).toBe(7);
    expect(r.slice(7, 100).map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    expect(r.slice(6, 100)).toEqual([]);
  });

  it('evicts by bytes as well as by count, counting UTF-8 bytes', () => {
    const text = 'é'.repeat(100); // 200 bytes of UTF-8, 100 UTF-16 units
    const one = eventBytes(ev(1, text));
    expect(one).toBe(EVENT_OVERHEAD_BYTES + 200);
    const r = new EventRing(1000, one * 3);
    for (let i = 1; i <= 10; i++) r.push(ev(i, text));
    expect(r.size).toBe(3);
    expect(r.byteSize).toBe(one * 3);
    expect(r.oldestSeq).toBe(8);
  });

  it('keeps the newest event even when it alone exceeds the byte bound', () => {
    const r = new EventRing(10, 100);
    r.push(ev(1, 'x'.repeat(500)));
    expect(r.size).toBe(1);
    r.push(ev(2, 'y'));
    expect(r.oldestSeq).toBe(2);
  });

  it('bounds batches by bytes but always returns at least one event', () => {
    const r = new EventRing(100, 1 << 20);
    for (let i = 1; i <= 10; i++) r.push(ev(i, 'x'.repeat(1000)));
    const per = eventBytes(ev(1, 'x'.repeat(1000)));
    expect(r.sliceBounded(1, 100, per * 3).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(r.sliceBounded(1, 2, 1 << 20).length).toBe(2);
    expect(r.sliceBounded(5, 100, 1).map((e) => e.seq)).toEqual([5]);
  });

  it('wakes waiting readers on push and on abort', async () => {
    const r = new EventRing(4, 1 << 20);
    const woke = r.nextPush();
    r.push(ev(1));
    await expect(woke).resolves.toBeUndefined();
    const ac = new AbortController();
    const aborted = r.nextPush(ac.signal);
    ac.abort();
    await expect(aborted).resolves.toBeUndefined();
  });

  it('wraps around many times without losing order', () => {
    const r = new EventRing(7, 1 << 20);
    for (let i = 1; i <= 1000; i++) {
      r.push(ev(i));
      expect(r.get(i)?.seq).toBe(i);
    }
    expect(r.slice(994, 10).map((e) => e.seq)).toEqual([994, 995, 996, 997, 998, 999, 1000]);
  });
});

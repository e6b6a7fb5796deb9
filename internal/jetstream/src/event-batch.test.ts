import { describe, expect, it } from 'vitest';
import { batchesOf, packEvents, unpackEvents } from './event-batch.js';

const ev = (seq: number, size: number) => ({ seq, bytes: new Uint8Array(size).fill(seq % 251) });

describe('events packed into fleet messages', () => {
  it('gives back what was packed, seq by seq, empty events included', () => {
    const events = [ev(7, 3), ev(8, 0), ev(9, 1000)];
    const back = unpackEvents(packEvents(events), 7);
    expect(back.map((e) => e.seq)).toEqual([7, 8, 9]);
    expect(back.map((e) => Buffer.from(e.bytes))).toEqual(events.map((e) => Buffer.from(e.bytes)));
  });

  it('refuses a damaged message instead of inventing events', () => {
    const packed = packEvents([ev(1, 10), ev(2, 10)]);
    expect(() => unpackEvents(packed.subarray(0, packed.length - 1), 1)).toThrow(
      'a damaged fleet message at seq 1',
    );
    expect(() => unpackEvents(packed.subarray(0, 2), 1)).toThrow('a damaged fleet message');
  });

  it('cuts runs within the bound, an event larger than it alone', () => {
    const events = [ev(1, 96), ev(2, 96), ev(3, 96), ev(4, 500), ev(5, 10)];
    // Each packed event takes 4 bytes more than its own.
    const runs = batchesOf(events, 200);
    expect(runs.map((r) => r.map((e) => e.seq))).toEqual([[1, 2], [3], [4], [5]]);
    expect(batchesOf([], 200)).toEqual([]);
  });
});

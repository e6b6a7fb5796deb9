import { describe, expect, it } from 'vitest';
import { SeqTracker } from './seq-tracker.js';

const feed = (t: SeqTracker, seqs: number[]) => {
  for (const seq of seqs) t.see({ seq });
};

describe('SeqTracker', () => {
  it('accepts a contiguous sequence split over resumed streams', () => {
    const t = new SeqTracker();
    t.open(0);
    feed(t, [1, 2, 3]);
    t.open(t.lastSeq);
    feed(t, [4, 5]);
    expect(t.problems).toEqual([]);
    expect(t.lastSeq).toBe(5);
  });

  it('accepts loss reported by an overflow that starts where the reader was', () => {
    const t = new SeqTracker();
    t.open(0);
    feed(t, [1, 2]);
    t.see({ seq: 40, overflow: { firstMissing: 3, lastMissing: 40 } });
    feed(t, [41]);
    expect(t.problems).toEqual([]);
    expect(t.overflows).toBe(1);
    expect(t.missed).toBe(38);
  });

  it('reports a silent gap, a repeat and an overflow with the wrong range', () => {
    const t = new SeqTracker();
    t.open(0);
    feed(t, [1, 3, 3]);
    t.see({ seq: 9, overflow: { firstMissing: 5, lastMissing: 9 } });
    expect(t.problems).toEqual([
      { kind: 'gap', expected: 2, got: 3 },
      { kind: 'repeat', expected: 4, got: 3 },
      { kind: 'bad-overflow', expected: 4, got: 9 },
    ]);
  });

  it('starts from the after_seq of the first stream only', () => {
    const t = new SeqTracker();
    t.open(10);
    feed(t, [11]);
    t.open(3);
    feed(t, [12]);
    expect(t.problems).toEqual([]);
  });
});

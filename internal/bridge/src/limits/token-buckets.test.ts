import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-buckets.js';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('TokenBuckets', () => {
  it('grants a burst, then refuses with the wait until the next token', () => {
    const c = clock();
    const b = new TokenBuckets({ perMinute: 60, burst: 3 }, c);
    expect([b.take('a'), b.take('a'), b.take('a')]).toEqual([0, 0, 0]);
    expect(b.take('a')).toBe(1000);
    c.advance(400);
    expect(b.take('a')).toBe(600);
    c.advance(600);
    expect(b.take('a')).toBe(0);
    expect(b.take('a')).toBe(1000);
  });

  it('keeps one bucket per key: one caller spending everything leaves the others whole', () => {
    const b = new TokenBuckets({ perMinute: 6, burst: 2 }, clock());
    b.take('greedy');
    b.take('greedy');
    expect(b.take('greedy')).toBeGreaterThan(0);
    expect(b.take('other')).toBe(0);
    expect(b.take('other')).toBe(0);
  });

  it('refills up to the burst, never beyond', () => {
    const c = clock();
    const b = new TokenBuckets({ perMinute: 60, burst: 2 }, c);
    b.take('a');
    c.advance(3_600_000);
    expect([b.take('a'), b.take('a')]).toEqual([0, 0]);
    expect(b.take('a')).toBeGreaterThan(0);
  });

  it('peek tells whether a token is there without taking it', () => {
    const b = new TokenBuckets({ perMinute: 60, burst: 1 }, clock());
    expect(b.peek('a')).toBe(0);
    expect(b.peek('a')).toBe(0);
    expect(b.take('a')).toBe(0);
    expect(b.peek('a')).toBe(1000);
  });

  it('is off with perMinute 0', () => {
    const b = new TokenBuckets({ perMinute: 0, burst: 1 }, clock());
    for (let i = 0; i < 100; i++) expect(b.take('a')).toBe(0);
    expect(b.enabled).toBe(false);
  });

  it('bounds the keys it keeps, forgetting full buckets before spent ones', () => {
    const c = clock();
    const b = new TokenBuckets({ perMinute: 60, burst: 2 }, c, 3);
    b.take('spent');
    b.take('spent');
    b.take('recent');
    c.advance(1000);
    // "spent" (least recently used) has 1 of 2 tokens; "recent" is full again.
    b.take('y');
    b.take('z');
    // "recent" was forgotten (a full bucket is the same as none); "spent" was kept.
    expect([b.take('spent'), b.take('spent')]).toEqual([0, 1000]);
  });
});

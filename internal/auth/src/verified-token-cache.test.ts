import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache } from './verified-token-cache.js';

const A = Buffer.from('cert-A');
const B = Buffer.from('cert-B');

describe('VerifiedTokenCache', () => {
  it('answers for the same token over the same certificate until validUntil, not at it', () => {
    const c = new VerifiedTokenCache<string>(10);
    c.set('t', A, 'caller', 1_000);
    expect(c.get('t', Buffer.from('cert-A'), 999)).toBe('caller');
    expect(c.get('t', A, 1_000)).toBeUndefined();
    // An expired entry is dropped, not kept.
    expect(c.size).toBe(0);
  });

  it('never answers for the token over another certificate', () => {
    const c = new VerifiedTokenCache<string>(10);
    c.set('t', A, 'caller', 1_000);
    expect(c.get('t', B, 0)).toBeUndefined();
    expect(c.get('other', A, 0)).toBeUndefined();
    expect(c.get('t', A, 0)).toBe('caller');
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const c = new VerifiedTokenCache<string>(2);
    c.set('t1', A, 'one', 1_000);
    c.set('t2', A, 'two', 1_000);
    expect(c.get('t1', A, 0)).toBe('one'); // t1 is now the most recent
    c.set('t3', A, 'three', 1_000);
    expect(c.size).toBe(2);
    expect(c.get('t2', A, 0)).toBeUndefined();
    expect(c.get('t1', A, 0)).toBe('one');
    expect(c.get('t3', A, 0)).toBe('three');
  });

  it('keeps nothing when sized 0', () => {
    const c = new VerifiedTokenCache<string>(0);
    c.set('t', A, 'caller', 1_000);
    expect(c.get('t', A, 0)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { BridgeError } from '../errors.js';
import { CursorStore } from './cursors.js';

describe('CursorStore', () => {
  it('moves acks forward only', () => {
    const c = new CursorStore(4, 1000);
    expect(c.ack('a', 5, 0)).toBe(5);
    expect(c.ack('a', 3, 1)).toBe(5);
    expect(c.ack('a', 9, 2)).toBe(9);
    expect(c.get('a', 3)).toBe(9);
  });

  it('expires untouched cursors after the ttl', () => {
    const c = new CursorStore(4, 1000);
    c.ack('a', 5, 0);
    c.touch('a', 900);
    expect(c.get('a', 1800)).toBe(5);
    expect(c.get('a', 2900)).toBeUndefined();
  });

  it('bounds the number of cursors, reclaiming expired ones first', () => {
    const c = new CursorStore(2, 1000);
    c.ack('a', 1, 0);
    c.ack('b', 1, 0);
    expect(() => c.ack('c', 1, 10)).toThrow(BridgeError);
    expect(c.ack('c', 1, 5000)).toBe(1);
    expect(c.size).toBe(1);
  });
});

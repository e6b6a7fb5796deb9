import { describe, expect, it } from 'vitest';
import { BridgeError, ResourceExhaustedError, UnavailableError } from '../errors.js';
import { backoffDelay, backoffFrom, isTransient, pause } from './backoff.js';

describe('backoff', () => {
  const b = backoffFrom({ initialDelayMs: 100, maxDelayMs: 1000 });

  it('draws each pause at random below a ceiling that doubles up to the maximum', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelay(b, n, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(backoffDelay(b, 3, () => 0)).toBe(0);
    expect(backoffDelay(b, 3, () => 0.5)).toBe(400);
  });

  it('retries only what may succeed later', () => {
    expect(isTransient(new UnavailableError('UNAVAILABLE', 'down'))).toBe(true);
    expect(isTransient(new ResourceExhaustedError('RESOURCE_EXHAUSTED', 'limit'))).toBe(false);
    expect(
      isTransient(new ResourceExhaustedError('RESOURCE_EXHAUSTED', 'rate', { retryAfterMs: 50 })),
    ).toBe(true);
    expect(isTransient(new BridgeError('INTERNAL', 'bug'))).toBe(false);
    expect(isTransient(new Error('x'))).toBe(false);
  });

  it('validates its options', () => {
    expect(() => backoffFrom({ maxAttempts: 0 })).toThrow('at least 1');
    expect(() => backoffFrom({ initialDelayMs: 10, maxDelayMs: 5 })).toThrow('maxDelayMs');
    expect(backoffFrom(undefined)).toEqual({
      maxAttempts: 10,
      initialDelayMs: 200,
      maxDelayMs: 5000,
    });
  });

  it('stops a pause with the signal reason', async () => {
    const ac = new AbortController();
    const reason = new Error('enough');
    const p = pause(60_000, ac.signal);
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
  });
});

import { describe, expect, it } from 'vitest';
import { TokenHook } from './token-hook.js';

/** An unsigned JWT with these claims: the hook reads, never verifies. */
const jwt = (claims: Record<string, unknown>) =>
  ['{"alg":"EdDSA"}', JSON.stringify(claims), 'sig']
    .map((p, i) => (i < 2 ? Buffer.from(p).toString('base64url') : p))
    .join('.');

describe('TokenHook', () => {
  it('caches a token until a quarter of its lifetime is left, sharing one call', async () => {
    let now = 1_000_000_000_000;
    const calls: boolean[] = [];
    const hook = new TokenHook(
      async ({ renew }) => {
        calls.push(renew);
        const iat = Math.floor(now / 1000);
        return jwt({ iat, exp: iat + 100 });
      },
      () => now,
    );
    const [a, b] = await Promise.all([hook.token(), hook.token()]);
    expect(a).toBe(b);
    expect(calls).toEqual([false]);
    now += 74_000;
    expect(await hook.token()).toBe(a);
    now += 2_000; // 76 s of 100: a quarter left
    expect(await hook.token()).not.toBe(a);
    expect(calls).toEqual([false, false]);
  });

  it('asks with renew after renew(), and at least 5 s before exp, at most at half the lifetime', async () => {
    let now = 1_000_000_000_000;
    const calls: boolean[] = [];
    const hook = new TokenHook(
      async ({ renew }) => {
        calls.push(renew);
        const iat = Math.floor(now / 1000);
        return jwt({ iat, exp: iat + 8 });
      },
      () => now,
    );
    const first = await hook.token();
    now += 3_900; // an 8 s token: kept for half of it (5 s before exp would be 3 s)
    expect(await hook.token()).toBe(first);
    now += 200;
    await hook.token();
    hook.renew();
    await hook.token();
    expect(calls).toEqual([false, false, true]);
  });

  it('refuses what is not a JWT with exp, or is expired, and names a failing function', async () => {
    const now = () => 1_000_000_000_000;
    await expect(new TokenHook(async () => 'nope', now).token()).rejects.toThrow(
      'jwt.token: the token function must return a JWT (a compact JWS) with an exp claim',
    );
    await expect(new TokenHook(async () => jwt({ iat: 1 }), now).token()).rejects.toThrow(
      'with an exp claim',
    );
    await expect(new TokenHook(async () => jwt({ exp: 5 }), now).token()).rejects.toThrow(
      'jwt.token: the token function returned an expired token',
    );
    await expect(
      new TokenHook(async () => {
        throw new Error('kms down');
      }, now).token(),
    ).rejects.toThrow('jwt.token: the token function failed: kms down');
  });
});

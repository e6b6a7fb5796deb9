import type { TokenFunction } from '../options.js';
import { type RenewableToken, TokenCache } from './token-cache.js';

/** A token from the caller's function is asked again this long before it expires (unless it lives shorter). */
const MIN_MARGIN_MS = 5000;

/**
 * Tokens from the caller's own function (minted by a KMS, another
 * service): cached, and asked for again with a quarter of their lifetime
 * left, as the SDK's own are; concurrent callers share one call. The
 * lifetime is read from the token's `iat` and `exp` (not verified: the
 * daemon does that). After the daemon ended a stream for an expired token,
 * the function is called with `renew: true`.
 */
export class TokenHook extends TokenCache {
  constructor(fn: TokenFunction, now: () => number = Date.now) {
    super((renew) => ask(fn, renew, now), now);
  }
}

async function ask(fn: TokenFunction, renew: boolean, now: () => number): Promise<RenewableToken> {
  let token: unknown;
  try {
    token = await fn({ renew });
  } catch (err) {
    throw new Error(`jwt.token: the token function failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const { iat, exp } = lifetime(token);
  const nowSec = now() / 1000;
  if (exp <= nowSec) throw new Error(`jwt.token: the token function returned an expired token`);
  const ttlMs = (exp - Math.min(iat ?? nowSec, nowSec)) * 1000;
  // A quarter of the lifetime, at least 5 s, but never more than half of it.
  const margin = Math.min(ttlMs / 2, Math.max(MIN_MARGIN_MS, ttlMs / 4));
  return { token: token as string, renewAt: Math.max(now(), exp * 1000 - margin) };
}

/** `iat` and `exp` of a compact JWS, read without verifying it. */
function lifetime(token: unknown): { iat: number | undefined; exp: number } {
  const parts = typeof token === 'string' ? token.split('.') : [];
  let claims: { iat?: unknown; exp?: unknown } | undefined;
  try {
    claims =
      parts.length === 3 ? JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) : undefined;
  } catch {
    claims = undefined;
  }
  if (!claims || typeof claims.exp !== 'number') {
    throw new Error(
      'jwt.token: the token function must return a JWT (a compact JWS) with an exp claim',
    );
  }
  return { iat: typeof claims.iat === 'number' ? claims.iat : undefined, exp: claims.exp };
}

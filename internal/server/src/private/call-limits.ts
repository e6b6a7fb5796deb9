import { type Caller, type Clock, exhausted, TokenBuckets } from '@agent-bridge/bridge';
import type { BridgeConfig } from '@agent-bridge/config';

/** The per-identity rate limits of the RPCs that have one. */
export interface CallLimits {
  startSession: TokenBuckets;
  sendInput: TokenBuckets;
  /** Keyed by client certificate: failed authentications have no trusted `sub`. */
  failedAuth: TokenBuckets;
}

export function createCallLimits(limits: BridgeConfig['rateLimits'], clock: Clock): CallLimits {
  return {
    startSession: new TokenBuckets(limits.startSession, clock),
    sendInput: new TokenBuckets(limits.sendInput, clock),
    failedAuth: new TokenBuckets(limits.failedAuth, clock),
  };
}

/**
 * Spends one of `caller`'s tokens for `method`, or refuses with
 * RESOURCE_EXHAUSTED and when to retry. The identity is the certificate
 * plus the token's issuer and subject, so callers sharing a certificate
 * (several services of one control plane) still get their own allowance.
 */
export function spend(buckets: TokenBuckets, method: string, caller: Caller): void {
  const id = caller.identity ?? {};
  const wait = buckets.take(`${id.certFingerprint ?? ''}|${id.iss ?? ''}|${caller.subject}`);
  if (wait > 0) {
    throw exhausted(
      `${method} rate limit reached for this caller; retry in ${Math.ceil(wait / 1000)}s`,
      'rate_limited',
      wait,
    );
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { BridgeError, TlsRefusalError } from '../errors.js';
import type { RetryOptions } from '../options.js';

export interface Backoff {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export function backoffFrom(o: RetryOptions | undefined): Backoff {
  const b = {
    maxAttempts: o?.maxAttempts ?? 10,
    initialDelayMs: o?.initialDelayMs ?? 200,
    maxDelayMs: o?.maxDelayMs ?? 5000,
  };
  if (!Number.isInteger(b.maxAttempts) || b.maxAttempts < 1) {
    throw new TypeError('retry.maxAttempts must be an integer of at least 1');
  }
  if (!(b.initialDelayMs > 0) || !(b.maxDelayMs >= b.initialDelayMs)) {
    throw new TypeError('retry delays must be positive, maxDelayMs at least initialDelayMs');
  }
  return b;
}

/**
 * The pause before retry number `attempt` (0 for the first retry):
 * exponential backoff with full jitter, a random time between 0 and
 * min(maxDelayMs, initialDelayMs * 2^attempt), so clients that failed
 * together do not come back together.
 */
export function backoffDelay(b: Backoff, attempt: number, random = Math.random): number {
  return random() * Math.min(b.maxDelayMs, b.initialDelayMs * 2 ** attempt);
}

/**
 * Whether a failure is transient: the daemon unreachable or shutting down
 * (UNAVAILABLE), or a limit it marked as worth retrying after a pause
 * (RESOURCE_EXHAUSTED with a retry pushback). Anything else fails the same
 * way again; so does a TLS refusal, though grpc-js calls it UNAVAILABLE.
 */
export function isTransient(err: unknown): err is BridgeError {
  if (!(err instanceof BridgeError) || err instanceof TlsRefusalError) return false;
  return (
    err.code === 'UNAVAILABLE' ||
    (err.code === 'RESOURCE_EXHAUSTED' && err.retryAfterMs !== undefined)
  );
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(ms, undefined, signal ? { signal } : undefined).catch((err: unknown) => {
    throw signal?.aborted ? signal.reason : err;
  });
}

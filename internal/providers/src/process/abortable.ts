import { scope } from '@agent-bridge/scope';

/**
 * Settles like `p`, or rejects with `signal`'s reason as soon as it aborts,
 * whichever comes first. `p` itself goes on: ending it is the caller's
 * business. The listener is removed once `p` settles, so a long-lived
 * signal does not collect one per call.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Why a deadline signal aborted: its time ran out (the other reason is its parent's). */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`deadline of ${ms}ms exceeded`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * A signal that aborts after `ms` (reason DeadlineExceeded) or when
 * `parent` aborts (its reason): a scope with a deadline. Call `dispose`
 * when done: it disarms the timer and unhooks from `parent`.
 */
export function deadline(
  ms: number,
  parent: AbortSignal,
): { signal: AbortSignal; dispose(): void } {
  const s = scope(parent, { timeoutMs: ms, timeoutReason: () => new DeadlineExceeded(ms) });
  return { signal: s.signal, dispose: () => s.end() };
}

/**
 * The first of `promises` to settle, or 'waited' once `ms` have passed: the
 * wait is a scope with a deadline, disarmed as soon as one settles. A
 * rejection is passed on.
 */
export async function firstWithin<T>(
  promises: readonly Promise<T>[],
  ms: number,
): Promise<T | 'waited'> {
  const wait = scope([], { timeoutMs: ms });
  try {
    return await untilAborted(Promise.race(promises), wait.signal);
  } catch (err) {
    if (err === wait.signal.reason) return 'waited';
    throw err;
  } finally {
    wait.end();
  }
}

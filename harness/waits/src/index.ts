// How every test in the workspace waits. Each wait ends: it resolves when
// what it waits for happens, or throws after its time, naming what it waited
// for. None sleeps a fixed time to let something happen.

/** What a wait is for; a function is read only when the wait fails. */
export type WaitDescription = string | (() => string);

export const describeWait = (what: WaitDescription): string =>
  typeof what === 'function' ? what() : what;

const timedOut = (what: WaitDescription, ms: number) =>
  new Error(`timed out after ${ms} ms waiting for ${describeWait(what)}`);

/**
 * Polls `holds` every `everyMs` until it returns true. Throws when
 * `timeoutMs` passes first; an error thrown by `holds` fails the wait at once.
 */
export async function waitFor(
  what: WaitDescription,
  holds: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  everyMs = 25,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await holds()) return;
    if (Date.now() >= end) throw timedOut(what, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Settles as `promise` does; throws when `timeoutMs` passes first. */
export function within<T>(
  what: WaitDescription,
  promise: Promise<T>,
  timeoutMs = 10_000,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(what, timeoutMs)), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Resolves after the current turn of the event loop: every promise already
 * settled has run its callbacks and pending I/O callbacks have had their
 * turn. For unit tests that check that something has *not* happened yet.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

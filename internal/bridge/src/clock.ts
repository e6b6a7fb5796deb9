/** The core's time source, passed in so tests can move time by hand. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/**
 * The timers the core schedules (start-up deadlines, the sweeper), passed in
 * beside the clock so a test fires them by advancing a fake one instead of
 * sleeping. Cancellation is an AbortSignal, as everywhere in the core.
 */
export interface Timers {
  /** Calls `fn` once, `ms` from now, unless `signal` aborts first. */
  after(ms: number, fn: () => void, signal: AbortSignal): void;
  /** Calls `fn` every `ms` until `signal` aborts; never keeps the process alive by itself. */
  every(ms: number, fn: () => void, signal: AbortSignal): void;
}

export const systemClock: Clock = { now: () => Date.now() };

export const systemTimers: Timers = {
  after(ms, fn, signal) {
    if (signal.aborted) return;
    const timer = setTimeout(fn, ms);
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  },
  every(ms, fn, signal) {
    if (signal.aborted) return;
    const timer = setInterval(fn, ms).unref();
    signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  },
};

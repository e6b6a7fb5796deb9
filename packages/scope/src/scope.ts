/**
 * Why a scope ended, in the words every layer shares: the daemon shutting
 * down, a session stopped or its agent gone, a turn ending or interrupted,
 * a deadline passing. Carried as the scope's abort reason, so whoever
 * watches a signal knows why it fired without being told separately.
 */
export type EndCause = 'shutdown' | 'stop' | 'exit' | 'interrupt' | 'turn_end' | 'timeout';

/** The abort reason of a scope ended for one of the shared causes. */
export class ScopeEnded extends Error {
  constructor(readonly why: EndCause) {
    super(`scope ended: ${why}`);
    this.name = 'ScopeEnded';
  }
}

/** The cause an aborted signal carries, when its reason is one of ours. */
export function endCause(signal: AbortSignal): EndCause | undefined {
  return signal.reason instanceof ScopeEnded ? signal.reason.why : undefined;
}

/** Schedules `fn` after `ms` unless `signal` aborts first (the core's Timers.after has this shape). */
export type After = (ms: number, fn: () => void, signal: AbortSignal) => void;

const unrefTimer: After = (ms, fn, signal) => {
  if (signal.aborted) return;
  const timer = setTimeout(fn, ms);
  timer.unref();
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
};

export interface ScopeOptions {
  /** Ends the scope this long after it starts, with `ScopeEnded('timeout')` unless `timeoutReason` says otherwise. */
  timeoutMs?: number;
  timeoutReason?: () => unknown;
  /** The timer to use (a fake one in tests); by default an unref'd setTimeout. */
  after?: After;
}

/**
 * A lifetime: a signal that aborts when the scope ends, ended by its owner
 * (`end`), by its deadline, or with any parent, whichever comes first; the
 * first reason stays. A scope holds a listener on each parent only while
 * it lives, so a long-lived parent (a session) does not collect one per
 * child that came and went (a turn, a request).
 */
export interface Scope {
  readonly signal: AbortSignal;
  /** Ends the scope, and every scope under it, with `reason` (an AbortError when none); later calls do nothing. */
  end(reason?: unknown): void;
}

/**
 * A scope under `parents` (none for a root scope). A parent already aborted
 * ends the new scope at once with its reason. The one place a lifetime is
 * linked to another: everything else takes a signal from here.
 */
export function scope(
  parents: AbortSignal | readonly AbortSignal[] = [],
  o: ScopeOptions = {},
): Scope {
  const controller = new AbortController();
  const signal = controller.signal;
  const list: readonly AbortSignal[] = Array.isArray(parents) ? parents : [parents as AbortSignal];
  const end = (reason?: unknown) => {
    if (!signal.aborted) controller.abort(reason);
  };
  const listeners: (() => void)[] = [];
  for (const parent of list) {
    if (parent.aborted) {
      end(parent.reason);
      break;
    }
    const onAbort = () => end(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    listeners.push(() => parent.removeEventListener('abort', onAbort));
  }
  if (signal.aborted) for (const off of listeners) off();
  else {
    signal.addEventListener(
      'abort',
      () => {
        for (const off of listeners) off();
      },
      { once: true },
    );
    if (o.timeoutMs !== undefined) {
      (o.after ?? unrefTimer)(
        o.timeoutMs,
        () => end(o.timeoutReason?.() ?? new ScopeEnded('timeout')),
        signal,
      );
    }
  }
  return { signal, end };
}

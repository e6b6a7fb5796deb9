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

export interface ScopeOptions {
  /** Ends the scope this long after it starts, with `ScopeEnded('timeout')` unless `timeoutReason` says otherwise. */
  timeoutMs?: number;
  timeoutReason?: () => unknown;
  /** The timer to use (a fake one in tests); by default an unref'd setTimeout, cleared when the scope ends. */
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
  const ended = list.find((parent) => parent.aborted);
  if (ended) {
    controller.abort(ended.reason);
    return { signal, end: () => {} };
  }
  // Every way a scope ends goes through `end`, so it lets go of its parents
  // and its timer there: no listener on its own signal (a daemon holds a
  // scope for each of tens of thousands of streams).
  let timer: NodeJS.Timeout | undefined;
  const end = (reason?: unknown) => {
    if (signal.aborted) return;
    controller.abort(reason);
    for (let i = 0; i < list.length; i++) list[i]!.removeEventListener('abort', onAborts[i]!);
    if (timer !== undefined) clearTimeout(timer);
  };
  const onAborts = list.map((parent) => {
    const onAbort = () => end(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    return onAbort;
  });
  if (o.timeoutMs !== undefined) {
    const expire = () => end(o.timeoutReason?.() ?? new ScopeEnded('timeout'));
    if (o.after) o.after(o.timeoutMs, expire, signal);
    else {
      timer = setTimeout(expire, o.timeoutMs);
      timer.unref();
    }
  }
  return { signal, end };
}

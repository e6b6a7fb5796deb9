import { DeadlineExceeded, deadline, untilAborted } from '../process/abortable.js';
import type { ProbeSlots } from './probe-slots.js';

/** What one probe run gave: an answer (good or bad news), or none (cut short, could not run). */
export type ProbeOutcome<T> = { answered: true; value: T } | { answered: false; why: string };

export interface ProbedFactOptions<T> {
  /** Runs the probe. What it starts must end when `deadline` aborts. */
  probe(deadline: AbortSignal): Promise<ProbeOutcome<T>>;
  /** How long an answer holds before the next look re-checks it (Infinity: for good). */
  holdsFor(value: T): number;
  /** The budget of one run, counted from when it gets a slot. */
  timeoutMs: number;
  slots: ProbeSlots;
  /** Ends every run and retry (the daemon is stopping). */
  lifetime: AbortSignal;
  /** The first retry after a run without an answer; it doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  now?: () => number;
}

/** What is known of a fact: the last answer, and the last run since that gave none. */
export interface FactView<T> {
  answer?: { value: T; at: Date };
  /** The last run after `answer` (or with none before it) ended without one. */
  missed?: { at: Date; why: string };
  /** A run is under way. */
  running: boolean;
}

const DEFAULT_RETRY_MS = 1000;
const DEFAULT_MAX_RETRY_MS = 60_000;

/**
 * A fact about a binary that a probe process finds out (its version, its
 * login), kept stale-while-revalidate: readers get the last answer at once
 * and never wait for a run. A run that gives no answer (cut short at its
 * deadline on a busy host) keeps the answer before it and is retried in
 * the background with a growing delay; an answer, good or bad, is kept
 * until `holdsFor` says to look again, and the next `refresh` does.
 */
export class ProbedFact<T> {
  private answer: FactView<T>['answer'];
  private missed: FactView<T>['missed'];
  private running: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private misses = 0;

  constructor(private readonly opts: ProbedFactOptions<T>) {
    opts.lifetime.addEventListener('abort', () => clearTimeout(this.retryTimer), { once: true });
  }

  view(): FactView<T> {
    return {
      ...(this.answer ? { answer: this.answer } : {}),
      ...(this.missed ? { missed: this.missed } : {}),
      running: this.running !== undefined,
    };
  }

  /**
   * Starts a run in the background when nothing is known yet or the answer
   * no longer holds; not while one runs or a retry is already scheduled.
   * `force` runs now unless one runs (what the answer is about changed).
   */
  refresh(force = false): void {
    if (this.running || this.opts.lifetime.aborted) return;
    if (!force) {
      if (this.retryTimer) return;
      if (this.answer && !this.missed) {
        const age = this.now() - this.answer.at.getTime();
        if (age < this.opts.holdsFor(this.answer.value)) return;
      }
    }
    this.start();
  }

  /** Resolves when the run under way (if any) has ended. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private start(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const run = this.attempt().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
  }

  private async attempt(): Promise<void> {
    const { slots, lifetime } = this.opts;
    let outcome: ProbeOutcome<T>;
    try {
      outcome = await slots.run(lifetime, () => this.runWithin());
    } catch (err) {
      outcome = { answered: false, why: (err as Error).message };
    }
    if (lifetime.aborted) return;
    const at = new Date(this.now());
    if (outcome.answered) {
      this.answer = { value: outcome.value, at };
      this.missed = undefined;
      this.misses = 0;
      return;
    }
    this.missed = { at, why: outcome.why };
    this.scheduleRetry();
  }

  private async runWithin(): Promise<ProbeOutcome<T>> {
    const { timeoutMs, lifetime } = this.opts;
    const budget = deadline(timeoutMs, lifetime);
    try {
      const outcome = await untilAborted(this.opts.probe(budget.signal), budget.signal);
      // What a probe reports after its deadline is what the deadline cut short.
      if (budget.signal.aborted) throw budget.signal.reason;
      return outcome;
    } catch (err) {
      if (err instanceof DeadlineExceeded) {
        return { answered: false, why: `probe timed out after ${timeoutMs}ms` };
      }
      throw err;
    } finally {
      budget.dispose();
    }
  }

  private scheduleRetry(): void {
    const first = this.opts.retryMs ?? DEFAULT_RETRY_MS;
    const max = this.opts.maxRetryMs ?? DEFAULT_MAX_RETRY_MS;
    const delay = Math.min(max, first * 2 ** Math.min(this.misses, 30));
    this.misses++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.refresh(true);
    }, delay);
    this.retryTimer.unref();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}

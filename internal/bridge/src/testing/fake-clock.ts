import type { Clock, Timers } from '../clock.js';

interface Timer {
  due: number;
  /** Set for repeating timers. */
  period: number | undefined;
  fn: () => void;
  signal: AbortSignal;
}

/**
 * A clock that moves only when a test advances it, firing on the way every
 * timer that falls due, in order, at its due time. Tests of timeouts then
 * neither sleep nor depend on how fast the machine is.
 */
export class FakeClock implements Clock, Timers {
  private time: number;
  private timers: Timer[] = [];

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void, signal: AbortSignal): void {
    this.schedule(ms, undefined, fn, signal);
  }

  every(ms: number, fn: () => void, signal: AbortSignal): void {
    if (ms <= 0) throw new Error('a repeating timer needs a positive period');
    this.schedule(ms, ms, fn, signal);
  }

  /** Timers not yet fired (repeating ones until cancelled). */
  get pending(): number {
    return this.live().length;
  }

  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.live()
        .filter((t) => t.due <= end)
        .sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.time = next.due;
      if (next.period === undefined) this.timers.splice(this.timers.indexOf(next), 1);
      else next.due += next.period;
      next.fn();
    }
    this.time = end;
  }

  private schedule(ms: number, period: number | undefined, fn: () => void, signal: AbortSignal) {
    if (!signal.aborted) this.timers.push({ due: this.time + ms, period, fn, signal });
  }

  private live(): Timer[] {
    this.timers = this.timers.filter((t) => !t.signal.aborted);
    return this.timers;
  }
}

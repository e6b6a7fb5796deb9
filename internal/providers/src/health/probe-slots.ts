import { scope } from '@agent-bridge/scope';
/**
 * At most `size` health probes start at a time, daemon-wide: at start-up
 * every provider is probed, and a dozen CLIs (each a Node or Bun process
 * that costs a second of CPU) started together on a small host would
 * starve the agents being started and time each other out. A probe that
 * runs longer than `holdMs` gives its slot to the next one and runs on: a
 * CLI that hangs in its probe delays the others by `holdMs` at most, not
 * by its whole budget. Waiters are served in the order they came.
 */
export class ProbeSlots {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly size: number,
    private readonly holdMs = 2000,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError('probe slots: size must be ≥ 1');
  }

  /**
   * Runs `task` once a slot is free; its time starts then, not while it
   * waits. Rejects with `signal`'s reason if `signal` aborts before a slot
   * frees up.
   */
  async run<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    await this.acquire(signal);
    // The slot goes back when the task ends or after holdMs, whichever comes first.
    const hold = scope([], { timeoutMs: this.holdMs });
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      hold.end();
      this.release();
    };
    hold.signal.addEventListener('abort', release, { once: true });
    try {
      return await task();
    } finally {
      release();
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.taken < this.size) {
      this.taken++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const take = () => {
        signal.removeEventListener('abort', giveUp);
        this.taken++;
        resolve();
      };
      const giveUp = () => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(take);
    });
  }

  private release(): void {
    this.taken--;
    this.waiting.shift()?.();
  }
}

import { setTimeout as delay } from 'node:timers/promises';

/**
 * Writes to the fleet where only the latest value of each key matters (a
 * session's record, a subscriber's cursor): one write at a time, a newer
 * value replacing one not yet written, and a failed write tried again
 * (after a pause that grows to 30 s) until it succeeds, is replaced, or
 * the lifetime ends. So an outage of NATS delays these writes but loses
 * none: the last value of each key lands once NATS is back.
 */
export class LatestWrites {
  private readonly pending = new Map<string, () => Promise<void>>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly lifetime: AbortSignal,
    private readonly failed: (key: string, err: Error) => void,
  ) {}

  set(key: string, write: () => Promise<void>): void {
    this.pending.set(key, write);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Forgets a key's write not yet made. */
  drop(key: string): void {
    this.pending.delete(key);
  }

  get waiting(): number {
    return this.pending.size;
  }

  /** Resolves once nothing waits (or the lifetime ended). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    let backoff = 500;
    while (this.pending.size > 0 && !this.lifetime.aborted) {
      const [key, write] = this.pending.entries().next().value as [string, () => Promise<void>];
      this.pending.delete(key);
      try {
        await write();
        backoff = 500;
      } catch (err) {
        // Tried again unless a newer value came meanwhile.
        if (!this.pending.has(key)) this.pending.set(key, write);
        this.failed(key, err as Error);
        await delay(backoff, undefined, { signal: this.lifetime }).catch(() => undefined);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }
}

import type { Cursor, CursorKey, CursorStore } from './cursor-store.js';
import type { CallOptions } from './options.js';

/** The client call an Acker makes. */
export interface AckingClient {
  ackEvents(
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    opts: CallOptions,
  ): Promise<number>;
}

interface AckContext {
  client: AckingClient;
  cursors: CursorStore;
}

/** How long one acknowledgement may take before the next one tries again. */
const ACK_TIMEOUT_MS = 10_000;

/**
 * Acknowledges what a subscriber processed, to the daemon (AckEvents) and
 * to the cursor store, without holding up its loop: one acknowledgement at
 * a time, always of the newest processed seq. A failed acknowledgement is
 * tried again with the next one; at worst a later stream is given some
 * events twice, never none. The stored cursor never moves back.
 */
export class Acker {
  private target: number;
  private done: number;
  private unacked = 0;
  private running: Promise<void> | undefined;
  private readonly cancel = new AbortController();

  constructor(
    private readonly ctx: AckContext,
    private readonly key: CursorKey,
    private readonly instanceId: string,
    floor: number,
  ) {
    this.target = floor;
    this.done = floor;
  }

  /** `seq` was processed; acknowledge when `every` have gathered. */
  processed(seq: number, every: number): void {
    if (seq > this.target) this.target = seq;
    if (++this.unacked >= every) this.now();
  }

  /** Acknowledges what was processed so far, in the background. */
  now(): void {
    if (this.target <= this.done) return;
    this.unacked = 0;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /**
   * Acknowledges what is left and waits for it. `abandon` (the loop was
   * aborted): save the cursor only and do not wait for the daemon.
   */
  async flush(abandon: boolean): Promise<void> {
    if (abandon) {
      this.cancel.abort();
      if (this.target > this.done) await this.save(this.target).catch(() => undefined);
      return;
    }
    await this.running;
    this.now();
    await this.running;
  }

  private async drain(): Promise<void> {
    while (this.target > this.done && !this.cancel.signal.aborted) {
      const seq = this.target;
      const results = await Promise.allSettled([
        this.ctx.client.ackEvents(this.key.sessionId, this.key.subscriberId, seq, {
          timeoutMs: ACK_TIMEOUT_MS,
          signal: this.cancel.signal,
        }),
        this.save(seq),
      ]);
      if (results.some((r) => r.status === 'rejected')) return;
      this.done = seq;
    }
  }

  private save(seq: number): Promise<void> {
    const cursor: Cursor = { ackSeq: seq, instanceId: this.instanceId };
    return this.ctx.cursors.save(this.key, cursor);
  }
}

import type { Cursor, CursorKey, CursorStore } from './cursor-store.js';
import { FailedPreconditionError } from './errors.js';
import type { CallOptions } from './options.js';

/** The client call an Acker makes. */
export interface AckingClient {
  ackEvents(
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    opts: CallOptions & { historyId?: string },
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
 *
 * Every acknowledgement names the history its events came from. Once the
 * stream learns the daemon serves another history (it restarted), the
 * Acker is retired: nothing queued, being retried or still to come is
 * sent; and a daemon that refuses an ack as of another history retires it
 * too.
 */
export class Acker {
  private target: number;
  private done: number;
  private unacked = 0;
  private running: Promise<void> | undefined;
  private readonly cancel = new AbortController();
  private retired = false;

  constructor(
    private readonly ctx: AckContext,
    private readonly key: CursorKey,
    /** The history the acknowledged events belong to (the daemon's instance id today). */
    private readonly historyId: string,
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
    if (this.retired || this.target <= this.done) return;
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
    if (this.retired) return;
    if (abandon) {
      this.cancel.abort();
      if (this.target > this.done) await this.save(this.target).catch(() => undefined);
      return;
    }
    await this.running;
    this.now();
    await this.running;
  }

  /**
   * The events were of a history the daemon no longer serves: nothing more
   * is acknowledged, and an acknowledgement under way stops retrying.
   */
  retire(): void {
    this.retired = true;
    this.cancel.abort();
  }

  private async drain(): Promise<void> {
    while (this.target > this.done && !this.cancel.signal.aborted) {
      const seq = this.target;
      const results = await Promise.allSettled([
        this.ctx.client.ackEvents(this.key.sessionId, this.key.subscriberId, seq, {
          timeoutMs: ACK_TIMEOUT_MS,
          signal: this.cancel.signal,
          historyId: this.historyId,
        }),
        this.save(seq),
      ]);
      const [acked] = results;
      if (acked.status === 'rejected' && acked.reason instanceof FailedPreconditionError) {
        // The daemon serves another history now: acking on is pointless.
        this.retire();
      }
      if (results.some((r) => r.status === 'rejected')) return;
      this.done = seq;
    }
  }

  private save(seq: number): Promise<void> {
    const cursor: Cursor = { ackSeq: seq, instanceId: this.historyId };
    return this.ctx.cursors.save(this.key, cursor);
  }
}

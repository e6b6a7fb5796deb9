import { scope } from '@agent-bridge/scope';
import type { Cursor, CursorKey, CursorStore } from './cursor-store.js';
import { FailedPreconditionError } from './errors.js';

/** What an Acker needs from its stream. */
export interface AckContext {
  /**
   * Sends one AckEvents naming `historyId`, with no retry of its own: a
   * failed acknowledgement is replaced by the next one.
   */
  sendAck(
    key: CursorKey,
    ackSeq: number,
    historyId: string,
    opts: { timeoutMs: number; signal: AbortSignal },
  ): Promise<number>;
  /**
   * Whether the channel is still on the connection whose history the
   * stream checked: an acknowledgement goes out only then, never queued
   * for a connection that may lead to another daemon.
   */
  onCheckedConnection(): boolean;
  cursors: CursorStore;
}

/** How long one acknowledgement may take before the next one tries again. */
const ACK_TIMEOUT_MS = 10_000;

/**
 * Acknowledges what a subscriber processed, to the daemon (AckEvents) and
 * to the cursor store, without holding up its loop: one acknowledgement at
 * a time, always of the newest processed seq. A failed acknowledgement is
 * not retried; the next one (after the next event, or at the end) carries
 * a newer seq. At worst a later stream is given some events twice, never
 * none. The stored cursor never moves back.
 *
 * An acknowledgement names the history its events came from, and goes to
 * the daemon only while the connection the stream checked that history on
 * is up: never waiting for a new connection, which may lead to a restarted
 * daemon. Once the stream learns the daemon serves another history, the
 * Acker is retired and sends nothing more; a daemon that refuses an ack as
 * of another history retires it too.
 */
export class Acker {
  private target: number;
  private done: number;
  private unacked = 0;
  private running: Promise<void> | undefined;
  private readonly cancel = scope();
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
      this.cancel.end();
      if (this.target > this.done) await this.save(this.target).catch(() => undefined);
      return;
    }
    await this.running;
    this.now();
    await this.running;
    // Not sent (no checked connection any more): the cursor store still has it.
    if (!this.retired && this.target > this.done) {
      await this.save(this.target).catch(() => undefined);
    }
  }

  /**
   * The events were of a history the daemon no longer serves: nothing more
   * is acknowledged, and an acknowledgement under way is cancelled.
   */
  retire(): void {
    this.retired = true;
    this.cancel.end();
  }

  private async drain(): Promise<void> {
    while (this.target > this.done && !this.cancel.signal.aborted) {
      if (!this.ctx.onCheckedConnection()) return;
      const seq = this.target;
      const results = await Promise.allSettled([
        this.ctx.sendAck(this.key, seq, this.historyId, {
          timeoutMs: ACK_TIMEOUT_MS,
          signal: this.cancel.signal,
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

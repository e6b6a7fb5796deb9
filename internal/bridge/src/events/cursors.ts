import { exhausted } from '../errors.js';

interface Cursor {
  ackSeq: number;
  touchedAt: number;
}

/**
 * Acknowledged positions of a session's subscribers. Acks only move
 * forward; cursors untouched (no ack, no open stream) for `ttlMs` expire;
 * at most `max` cursors exist per session.
 */
export class CursorStore {
  private readonly cursors = new Map<string, Cursor>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    /** Cursors a store kept (a restored session's), put back as they were. */
    kept: Iterable<{ subscriberId: string; ackSeq: number; touchedAt: number }> = [],
  ) {
    for (const c of kept)
      this.cursors.set(c.subscriberId, { ackSeq: c.ackSeq, touchedAt: c.touchedAt });
  }

  /** The acknowledged seq of `id`, or undefined when it has none (or it expired). */
  get(id: string, now: number): number | undefined {
    const c = this.cursors.get(id);
    if (!c) return undefined;
    if (now - c.touchedAt >= this.ttlMs) {
      this.cursors.delete(id);
      return undefined;
    }
    return c.ackSeq;
  }

  /** Moves `id` forward to `seq` (never back) and returns the stored value. */
  ack(id: string, seq: number, now: number): number {
    let c = this.cursors.get(id);
    if (c && now - c.touchedAt >= this.ttlMs) {
      this.cursors.delete(id);
      c = undefined;
    }
    if (!c) {
      if (this.cursors.size >= this.max) this.expire(now);
      if (this.cursors.size >= this.max) {
        throw exhausted(
          `this session already has ${this.max} subscriber cursors`,
          'subscriber_limit',
        );
      }
      c = { ackSeq: 0, touchedAt: now };
      this.cursors.set(id, c);
    }
    c.touchedAt = now;
    if (seq > c.ackSeq) c.ackSeq = seq;
    return c.ackSeq;
  }

  /** Keeps `id` alive while a stream reads with it. */
  touch(id: string, now: number): void {
    const c = this.cursors.get(id);
    if (c) c.touchedAt = now;
  }

  expire(now: number): void {
    for (const [id, c] of this.cursors) {
      if (now - c.touchedAt >= this.ttlMs) this.cursors.delete(id);
    }
  }

  get size(): number {
    return this.cursors.size;
  }
}

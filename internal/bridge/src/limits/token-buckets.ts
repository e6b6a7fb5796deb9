import type { Clock } from '../clock.js';

/** Refill rate and capacity of one bucket; `perMinute: 0` switches the limit off. */
export interface BucketLimit {
  perMinute: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date. */
  at: number;
}

/**
 * Token buckets, one per key (a caller identity): each holds up to `burst`
 * tokens and refills at `perMinute`. There is deliberately no shared
 * bucket, so no caller can spend another's allowance. At most `maxKeys`
 * buckets are kept; full ones are forgotten first (a full bucket is the
 * same as none), then the least recently used.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly msPerToken: number;

  constructor(
    private readonly limit: BucketLimit,
    private readonly clock: Clock,
    private readonly maxKeys = 10_000,
  ) {
    this.msPerToken = limit.perMinute > 0 ? 60_000 / limit.perMinute : 0;
  }

  get enabled(): boolean {
    return this.limit.perMinute > 0;
  }

  /** Takes a token for `key`: 0 when granted, otherwise how many ms until one is available. */
  take(key: string): number {
    if (!this.enabled) return 0;
    const b = this.current(key);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return this.wait(b);
  }

  /** 0 when `key` has a token to spend, otherwise how many ms until it has; takes nothing. */
  peek(key: string): number {
    if (!this.enabled) return 0;
    const b = this.buckets.get(key);
    if (!b) return 0;
    this.refill(b);
    return b.tokens >= 1 ? 0 : this.wait(b);
  }

  private wait(b: Bucket): number {
    return Math.max(1, Math.ceil((1 - b.tokens) * this.msPerToken));
  }

  private current(key: string): Bucket {
    let b = this.buckets.get(key);
    if (b) {
      this.buckets.delete(key);
      this.refill(b);
    } else {
      b = { tokens: this.limit.burst, at: this.clock.now() };
      this.evict();
    }
    // Re-inserted, so the map's order is least recently used first.
    this.buckets.set(key, b);
    return b;
  }

  private refill(b: Bucket): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - b.at);
    b.tokens = Math.min(this.limit.burst, b.tokens + elapsed / this.msPerToken);
    b.at = now;
  }

  private evict(): void {
    if (this.buckets.size < this.maxKeys) return;
    for (const [key, b] of this.buckets) {
      this.refill(b);
      if (b.tokens >= this.limit.burst) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

const MAX_KEYS = 10_000;

/**
 * The seq each input idempotency key was first accepted with, so a retried
 * SendInput is answered without delivering the input twice. Bounded: the
 * oldest key is forgotten first, since retries come soon after the original.
 */
export class IdempotencyKeys {
  private readonly seqs = new Map<string, number>();

  /** The seq `key` was first accepted with; undefined for the empty key (no idempotency). */
  seqOf(key: string): number | undefined {
    return key ? this.seqs.get(key) : undefined;
  }

  remember(key: string, seq: number): void {
    if (!key) return;
    if (this.seqs.size >= MAX_KEYS) {
      const oldest = this.seqs.keys().next().value;
      if (oldest !== undefined) this.seqs.delete(oldest);
    }
    this.seqs.set(key, seq);
  }
}

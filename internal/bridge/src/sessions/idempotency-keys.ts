const MAX_KEYS = 10_000;
/** Keys kept in the session's record for a restart: the latest, as retries come soon. */
const KEPT_KEYS = 100;

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

  /** The latest keys (at most KEPT_KEYS), oldest first: what the session's record keeps. */
  latest(): [string, number][] {
    return [...this.seqs].slice(-KEPT_KEYS);
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

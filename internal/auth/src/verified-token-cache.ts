/** What a verified token established, kept until it no longer holds. */
interface Entry<T> {
  value: T;
  /** The client certificate the token was verified over (DER). */
  der: Buffer;
  /** Token expiry plus the accepted skew, ms since the epoch. */
  validUntil: number;
}

/**
 * Verified tokens by token and presenting certificate, so a client that
 * reuses its token (as the SDK does until near expiry) pays for the
 * signature once, not once per call. Bounded: the least recently used
 * entry leaves first. An entry is used only over the same certificate and
 * only before `validUntil`, the instant the full check would refuse the
 * token as expired; failures are never kept, so every bad token is checked
 * (and counted) again.
 */
export class VerifiedTokenCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly maxEntries: number) {}

  get(token: string, der: Buffer, now: number): T | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (now >= e.validUntil) {
      this.entries.delete(token);
      return undefined;
    }
    if (!e.der.equals(der)) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(token);
    this.entries.set(token, e);
    return e.value;
  }

  set(token: string, der: Buffer, value: T, validUntil: number): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(token);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(token, { value, der, validUntil });
  }

  get size(): number {
    return this.entries.size;
  }
}

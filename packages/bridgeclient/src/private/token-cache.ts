/** Where a client's bearer tokens come from: the local signer, or the caller's own function. */
export interface Tokens {
  /** A valid token: the cached one, or a fresh one once the cached is due for renewal. */
  token(): Promise<string>;
  /**
   * Forgets the cached token, so the next call gets a fresh one: the daemon
   * ended a stream because the token that opened it expired, which a client
   * whose clock runs behind the daemon's may not have seen coming.
   */
  renew(): void;
}

/** A token, and the moment (ms since the epoch) to get the next one. */
export interface RenewableToken {
  token: string;
  renewAt: number;
}

/**
 * Keeps the token `next` gave until its renewAt; concurrent callers share
 * one call of `next`. After renew(), `next` is told the token was refused,
 * so a caller's own function can skip a cache of its own.
 */
export class TokenCache implements Tokens {
  private current: RenewableToken | undefined;
  private pending: Promise<string> | undefined;
  private refused = false;

  constructor(
    private readonly next: (renew: boolean) => Promise<RenewableToken>,
    private readonly now: () => number,
  ) {}

  renew(): void {
    this.current = undefined;
    this.refused = true;
  }

  token(): Promise<string> {
    const cached = this.current;
    if (cached && this.now() < cached.renewAt) return Promise.resolve(cached.token);
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetch(): Promise<string> {
    const renew = this.refused;
    this.refused = false;
    this.current = await this.next(renew);
    return this.current.token;
  }
}

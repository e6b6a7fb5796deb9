/** Sessions whose daemon the fleet remembers, at most. */
const MAX_REMEMBERED = 100_000;

/** Which daemon runs each session the fleet started, listed or located. */
export class SessionOwners {
  private readonly owners = new Map<string, string>();

  get(sessionId: string): string | undefined {
    return this.owners.get(sessionId);
  }

  /** Remembers where a session runs; the oldest entries go once there are too many. */
  remember(sessionId: string, daemon: string): void {
    this.owners.delete(sessionId);
    this.owners.set(sessionId, daemon);
    if (this.owners.size > MAX_REMEMBERED) {
      const oldest = this.owners.keys().next().value;
      if (oldest !== undefined) this.owners.delete(oldest);
    }
  }
}

/**
 * The running turn of one session: its id (the agent's own when it has one,
 * else "turn-<n>") and its deadline. A CLI that retries forever must become
 * an AGENT_ERROR, not a hang, so every turn gets a timer.
 */
export class TurnTracker {
  private count = 0;
  private turnId: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (turnId: string) => void,
  ) {}

  /** The running turn's id, or undefined between turns. */
  get current(): string | undefined {
    return this.turnId;
  }

  /** Starts a turn (ending any previous one) and returns its id. */
  begin(agentTurnId?: string): string {
    this.end();
    this.count++;
    const id = agentTurnId || `turn-${this.count}`;
    this.turnId = id;
    if (this.timeoutMs > 0) {
      // Keyed by turn number, not id: adopt() may rename the turn while it runs.
      const n = this.count;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.count === n && this.turnId !== undefined) this.onTimeout(this.turnId);
      }, this.timeoutMs);
      this.timer.unref();
    }
    return id;
  }

  /** Renames the running turn once the agent tells us its own id. */
  adopt(agentTurnId: string): void {
    if (this.turnId !== undefined && agentTurnId) this.turnId = agentTurnId;
  }

  /** Ends the running turn; returns its id. */
  end(): string | undefined {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const id = this.turnId;
    this.turnId = undefined;
    return id;
  }
}

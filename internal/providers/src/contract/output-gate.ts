/**
 * Whether the daemon takes an agent's output now. The core closes it while
 * the agent's events wait for the store in more than a bounded amount (a
 * disk slower than the agent), and opens it once they are committed; a
 * supervised process stops reading its pipes meanwhile, so the agent
 * blocks on its writes instead of the daemon buffering without end.
 */
export class OutputGate {
  private closed = false;
  private readonly listeners = new Set<(open: boolean) => void>();

  get open(): boolean {
    return !this.closed;
  }

  close(): void {
    this.set(true);
  }

  reopen(): void {
    this.set(false);
  }

  /** Calls `listener` at each change (true: open again); returns how to stop. */
  onChange(listener: (open: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(closed: boolean): void {
    if (this.closed === closed) return;
    this.closed = closed;
    for (const l of this.listeners) l(!closed);
  }
}

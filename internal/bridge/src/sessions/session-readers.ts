/**
 * Who reads a session now, and when it was last active (an event stored or
 * a read): what its reader limit and its idle timeout count. Changed only
 * by the subscriptions that attach, read and leave.
 */
export class SessionReaders {
  private attachedNow = 0;
  private lastRead: number;

  /** `lastStoredAt` tells when the session last stored an event. */
  constructor(
    now: number,
    private readonly lastStoredAt: () => number,
  ) {
    this.lastRead = now;
  }

  /** Readers attached now (StreamEvents and StreamEventBatches calls). */
  get count(): number {
    return this.attachedNow;
  }

  /** When the session last stored an event or was read: what its idle timeout counts from. */
  get lastActivity(): number {
    return Math.max(this.lastRead, this.lastStoredAt());
  }

  /** A reader attached at `now`. */
  attached(now: number): void {
    this.attachedNow++;
    this.lastRead = now;
  }

  /** A reader went away. */
  detached(): void {
    this.attachedNow--;
  }

  /** Something read the session at `now`: it is not idle. */
  touched(now: number): void {
    this.lastRead = now;
  }
}

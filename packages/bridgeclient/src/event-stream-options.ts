export interface EventStreamOptions {
  /**
   * A stable id of this reader (1-128 of [A-Za-z0-9._:-]). With it, what
   * the loop has processed is acknowledged to the daemon and saved in the
   * client's cursor store, and a later stream with the same id resumes
   * after it, even from another process. Without it, the stream resumes
   * only across its own reconnects.
   */
  subscriberId?: string;
  /** Start after this seq (0: from the first event ever stored), whatever cursor is stored. */
  afterSeq?: number;
  /** Many events per message (StreamEventBatches). Default true. */
  batch?: boolean;
  /**
   * Acknowledge at the latest after this many processed events. The stream
   * also acknowledges whenever it has caught up with the daemon, and when
   * it ends. Default 100.
   */
  ackEvery?: number;
  /** Aborting ends the iteration after the event being processed: the loop rejects with the reason. */
  signal?: AbortSignal;
}

/** What one reader saw wrong in a session's sequence. */
export interface SeqProblem {
  kind: 'gap' | 'repeat' | 'bad-overflow';
  /** The seq the reader expected next. */
  expected: number;
  /** The seq it got (for an overflow report, its last_missing). */
  got: number;
}

/** The fields of an event the check needs; overflow reports carry their range in `data`. */
export interface SeqEvent {
  seq: number;
  overflow?: { firstMissing: number; lastMissing: number };
}

/**
 * Follows one reader of one session across every stream it opens (a resume
 * continues from the last seq it received). The contract: each event exactly
 * once, in order, and loss only as a BUFFER_OVERFLOW report whose range starts
 * exactly where the reader was.
 */
export class SeqTracker {
  private last = 0;
  private started = false;
  readonly problems: SeqProblem[] = [];
  overflows = 0;
  missed = 0;

  /** The after_seq to resume from. */
  get lastSeq(): number {
    return this.last;
  }

  /**
   * `from`: the after_seq the stream was opened with; a reader that starts
   * mid-session (after_seq = its first seen seq) is not a gap.
   */
  open(from: number): void {
    if (!this.started) {
      this.started = true;
      this.last = from;
    }
  }

  see(e: SeqEvent): void {
    const expected = this.last + 1;
    if (e.overflow) {
      const { firstMissing, lastMissing } = e.overflow;
      if (firstMissing !== expected || lastMissing !== e.seq || lastMissing < firstMissing) {
        this.problems.push({ kind: 'bad-overflow', expected, got: e.seq });
      }
      this.overflows++;
      this.missed += Math.max(0, e.seq - this.last);
      this.last = Math.max(this.last, e.seq);
      return;
    }
    if (e.seq === expected) {
      this.last = e.seq;
      return;
    }
    this.problems.push({ kind: e.seq < expected ? 'repeat' : 'gap', expected, got: e.seq });
    this.last = Math.max(this.last, e.seq);
  }
}

const NEWLINE = 0x0a;

/** Longest line emitted as one event; longer lines are split and marked as continued. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Turns a byte stream into lines. A line split across writes is reassembled;
 * a line longer than `maxLineBytes` is cut (on a UTF-8 character boundary)
 * into pieces flagged `continued`; invalid UTF-8 becomes U+FFFD; a trailing
 * "\r" is dropped. `flush()` emits the final unterminated line.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly onLine: (text: string, continued: boolean) => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      if (this.pendingBytes === 0) {
        // Most lines: decoded straight from the chunk, no Buffer made for them.
        this.emitWhole(chunk, start, nl);
      } else {
        this.pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.pending, this.pendingBytes + nl - start);
        this.pending = [];
        this.pendingBytes = 0;
        this.emitWhole(line, 0, line.length);
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      // Copy: the stream may reuse the chunk's memory.
      const rest = Buffer.from(chunk.subarray(start));
      this.pending.push(rest);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.maxLineBytes) this.cutPending();
    }
  }

  /** Emits whatever is left as a final line (at process exit). */
  flush(): void {
    if (this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.emitWhole(line, 0, line.length);
  }

  /** Emits `line[start, end)` as one line, or as continued pieces when it is too long. */
  private emitWhole(line: Buffer, start: number, end: number): void {
    if (end > start && line[end - 1] === 0x0d) end--;
    while (end - start > this.maxLineBytes) {
      const cut = utf8Boundary(line, start + this.maxLineBytes);
      this.onLine(line.toString('utf8', start, cut), true);
      start = cut;
    }
    this.onLine(line.toString('utf8', start, end), false);
  }

  /** Emits full pieces of an over-long pending line so memory stays bounded. */
  private cutPending(): void {
    let buf = Buffer.concat(this.pending, this.pendingBytes);
    while (buf.length > this.maxLineBytes) {
      const cut = utf8Boundary(buf, this.maxLineBytes);
      this.onLine(buf.toString('utf8', 0, cut), true);
      buf = buf.subarray(cut);
    }
    this.pending = [Buffer.from(buf)];
    this.pendingBytes = buf.length;
  }
}

/**
 * Largest index <= `at` that does not split a UTF-8 sequence (relative to
 * the start of `buf`). Falls back to `at` for invalid input.
 */
function utf8Boundary(buf: Buffer, at: number): number {
  for (let i = at; i > at - 4 && i > 0; i--) {
    const b = buf[i];
    if (b === undefined || (b & 0xc0) !== 0x80) return i;
  }
  return at;
}

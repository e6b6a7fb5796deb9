/**
 * Terminal escape sequences that colour or move text: CSI sequences (ESC [
 * or the 8-bit CSI, parameters, intermediates, a final byte) and two-byte
 * escapes. Bounded, so a stray ESC costs a constant. OSC sequences (ESC ]
 * … BEL, e.g. hyperlinks) lose only their introducer: their text, which may
 * hold a URL with a password, stays visible to the rules.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are what it matches.
const ESCAPE = /\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]|\x9b[0-?]{0,64}[ -/]{0,16}[@-~]|\x1b[@-Z\\-_]/g;

/** Longest text ESCAPE can match. */
const MAX_ESCAPE_CHARS = 2 + 64 + 16 + 1;

/**
 * A text as the rules see it, without its escape sequences, and the way
 * back: positions in `plain` map to positions in `raw`, so a secret found
 * in the plain text is replaced in the raw one. A secret wrapped in or
 * broken up by colour codes is therefore found, and the codes outside it
 * are kept.
 */
export class PlainText {
  readonly plain: string;
  /**
   * Start of each kept run in `plain` and in `raw`, from `from` (a plain
   * position) on. Built on first use, as most texts need no mapping, and
   * for a held-back tail only over the tail.
   */
  private runs: { from: number; plain: number[]; raw: number[] } | undefined;

  constructor(readonly raw: string) {
    this.plain =
      raw.indexOf('\x1b') === -1 && raw.indexOf('\x9b') === -1 ? raw : raw.replace(ESCAPE, '');
  }

  /** Where plain position `i` (0 ≤ i ≤ plain.length) is in `raw`; `plain.length` maps to `raw.length`. */
  rawIndex(i: number): number {
    if (i >= this.plain.length) return this.raw.length;
    if (this.plain.length === this.raw.length) return i;
    const runs = this.mapping(i);
    // The last run starting at or before i.
    let lo = 0;
    let hi = runs.plain.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((runs.plain[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    return (runs.raw[lo] as number) + i - (runs.plain[lo] as number);
  }

  /** Where the plain text up to `end` ends in `raw`: right after its last character. */
  rawEnd(end: number): number {
    return end === 0 ? 0 : this.rawIndex(end - 1) + 1;
  }

  /** Runs covering plain position `i` and everything after it. */
  private mapping(i: number): { from: number; plain: number[]; raw: number[] } {
    if (this.runs && this.runs.from <= i) return this.runs;
    // Start where the plain text up to `i` surely ends in raw (no later than
    // raw position i), then step back out of any escape sequence there.
    let start = i;
    const esc = Math.max(
      this.raw.lastIndexOf('\x1b', start - 1),
      this.raw.lastIndexOf('\x9b', start - 1),
    );
    if (esc >= 0 && start - esc < MAX_ESCAPE_CHARS) start = esc;
    const kept = start === 0 ? 0 : this.raw.slice(0, start).replace(ESCAPE, '').length;
    const runs = { from: kept, plain: [] as number[], raw: [] as number[] };
    let at = start;
    let plainAt = kept;
    ESCAPE.lastIndex = start;
    for (let m = ESCAPE.exec(this.raw); m !== null; m = ESCAPE.exec(this.raw)) {
      if (m.index > at) {
        runs.plain.push(plainAt);
        runs.raw.push(at);
        plainAt += m.index - at;
      }
      at = m.index + m[0].length;
    }
    if (at < this.raw.length) {
      runs.plain.push(plainAt);
      runs.raw.push(at);
    }
    this.runs = runs;
    return runs;
  }
}

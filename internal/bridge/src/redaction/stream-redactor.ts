import { mayHoldSecret } from './may-hold-secret.js';
import { PlainText } from './plain-text.js';
import { MAX_MATCH_CHARS, PEM_BEGIN_AT_END, PEM_END } from './redaction-rules.js';
import { replaceSpans, type SecretRedactor, type Span } from './redactor.js';

/**
 * How far a PEM block may run after a line that ends with its BEGIN line
 * before the stream is trusted again without its END line: lines (whole
 * lines, not pieces) and characters. A real key is far shorter (an
 * 8192-bit RSA key is about 100 lines of 64); the bound keeps a stray BEGIN
 * line from blanking the rest of a session.
 */
export const PEM_MAX_LINES = 256;
export const PEM_MAX_CHARS = 64 * 1024;

/**
 * Unredacted text held back at the end of a piece of an over-long line:
 * more than any rule can match, so a secret that starts before the held
 * back part has all of itself in view, and one that starts inside it is
 * matched next time with the text that follows.
 */
export const CARRY_CHARS = MAX_MATCH_CHARS + 4096;
/** The most held back when a secret straddles the cut and the cut moves back to its start. */
const MAX_CARRY_CHARS = 2 * CARRY_CHARS;

/**
 * Redaction of one output stream of a session (stdout or stderr), line by
 * line, with what a line alone cannot show carried between lines:
 *
 * - a PEM private key printed line by line: a line ending with a BEGIN line
 *   starts a block; every following line is replaced until the END line
 *   (bounded by PEM_MAX_LINES and PEM_MAX_CHARS);
 * - a line longer than the line limit arrives as `continued` pieces: the
 *   end of each piece (CARRY_CHARS) is held back, unredacted and in memory
 *   only, and stored at the front of the next piece, so a secret split by
 *   the cut is seen whole and no prefix of one is ever stored. A piece's
 *   text therefore differs from the raw piece; the pieces of a line still
 *   join to the redacted line.
 *
 * Terminal escape sequences are ignored when matching (see PlainText).
 */
export class StreamRedactor {
  private carry = '';
  private pem: { lines: number; chars: number } | undefined;

  constructor(private readonly secrets: SecretRedactor) {}

  /** The text to store for the next piece of the stream: a whole line, or a `continued` piece of one. */
  next(text: string, continued: boolean): string {
    // The common line: whole, nothing carried, no key block open, and nothing
    // any rule could match, so it is stored as it is.
    if (
      !continued &&
      this.carry === '' &&
      this.pem === undefined &&
      !this.secrets.hasConfigured &&
      !mayHoldSecret(text)
    ) {
      return text;
    }
    const view = new PlainText(this.carry + text);
    const plain = view.plain;
    let cut = continued ? Math.max(0, plain.length - CARRY_CHARS) : plain.length;
    // Never split a surrogate pair between what is stored and what is held back.
    if (cut > 0 && cut < plain.length && isHighSurrogate(plain.charCodeAt(cut - 1))) cut--;

    if (this.pem && (this.pem.lines >= PEM_MAX_LINES || this.pem.chars >= PEM_MAX_CHARS)) {
      this.pem = undefined;
    }
    let blocked = 0;
    if (this.pem) {
      const end = PEM_END.exec(plain);
      const endAt = end ? end.index + end[0].length : -1;
      if (end && endAt <= cut) {
        blocked = endAt;
        this.pem = undefined;
      } else {
        blocked = cut;
        this.pem.chars += cut;
        if (!continued) this.pem.lines++;
      }
    }

    const spans = withBlock(this.secrets.spans(plain), blocked);
    if (continued) {
      // Spans are sorted and disjoint: at most one straddles the cut.
      const across = spans.find((s) => s.start < cut && s.end > cut);
      if (across) cut = plain.length - across.start <= MAX_CARRY_CHARS ? across.start : across.end;
    }
    if (!continued && !this.pem && PEM_BEGIN_AT_END.test(plain)) {
      this.pem = { lines: 0, chars: 0 };
    }
    const stored = replaceSpans(
      view,
      spans.filter((s) => s.start < cut),
      cut,
    );
    this.carry = view.raw.slice(view.rawIndex(cut));
    return stored;
  }

  /** Redacts and returns what is still held back (an over-long line that never got its last piece). */
  flush(): string {
    return this.carry === '' ? '' : this.next('', false);
  }
}

/** `spans` with [0, until) added as one more secret. */
function withBlock(spans: Span[], until: number): Span[] {
  if (until === 0) return spans;
  const out: Span[] = [{ start: 0, end: until }];
  for (const s of spans) {
    const first = out[0] as Span;
    if (out.length === 1 && s.start <= first.end) first.end = Math.max(first.end, s.end);
    else out.push(s);
  }
  return out;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

import { PlainText } from './plain-text.js';
import type { RedactionRule } from './redaction-rules.js';
import { replaceSpans, type SecretRedactor, type Span } from './redactor.js';
import { rulesFor } from './rule-triggers.js';

/**
 * Text already stored that the rules still see in front of the next piece:
 * enough for what comes before a secret value (a key name and its quotes,
 * `Bearer `, a URL's scheme and user) and for the rules' lookbehinds. It is
 * kept in memory only.
 */
const CONTEXT_CHARS = 384;

/** A run longer than any rule's shortest secret: it carries one in progress past the text's end. */
const RUN = 'A'.repeat(64);

/**
 * Continuations that would complete a secret the text ends inside, by rule:
 * what has to follow the value for the rule to match (a URL password's
 * `@`, a PEM body's END line, a JWT's other parts, a space after "Bearer"),
 * and, for the rules of exact length, a value of every remaining length.
 */
const ALWAYS = [RUN];
const BY_RULE: Readonly<Record<string, readonly string[]>> = {
  'url-password': [`${RUN}@`],
  'bearer-token': [` ${RUN}`],
  jwt: ['AA.eyAA.A', 'eyAA.A', 'yAA.A', 'AA.A'],
  'aws-access-key-id': exactFills(16),
  'aws-secret-access-key': exactFills(40),
  'google-api-key': exactFills(35),
  'npm-token': exactFills(36),
};
/** The text ends with what may be the start of a PEM END line ("-", "-----EN", "-----END RSA PRIV"). */
const PARTIAL_END_LINE = /-{1,5}(?:E|EN|END(?: [A-Z0-9 ]{0,40}-{0,4})?)?$/;
/** The longest PEM body the private-key-tail rule takes before its END line. */
const MAX_PEM_BODY = 16_384;

function exactFills(max: number): string[] {
  return Array.from({ length: max }, (_, i) => `${'A'.repeat(i + 1)} `);
}

/**
 * Redaction of one message streamed in pieces (AGENT_MESSAGE_DELTA): a
 * secret split across deltas is found whole, and no piece of it is ever
 * stored. Each piece is stored only up to where nothing that may follow
 * can turn it into part of a secret: the text from the start of a secret
 * still in progress (one the next piece could extend or complete) is held
 * back, in memory only, and stored, redacted, with the piece that settles
 * it, or at the message's end (`flush`). Whether a secret is in progress is
 * asked of the rules themselves, by matching the text followed by each of
 * the continuations that could complete one.
 *
 * The pieces' texts therefore differ from the raw pieces; joined, they are
 * the message with every secret replaced. What a secret's match holds
 * before the secret itself (a key name, "Bearer ", the "-----BEGIN …"
 * label) may be stored before the secret is recognised; its value never is.
 */
export class DeltaRedactor {
  /** What was stored last, as the rules see it (plain text, unredacted, bounded). */
  private context = '';
  /** What was received and not stored yet (raw). */
  private pending = '';

  constructor(private readonly secrets: SecretRedactor) {}

  /** The text to store for this piece: '' when all of it must wait. */
  next(piece: string): string {
    return this.take(piece, false);
  }

  /** Everything held back, redacted: the message is complete. */
  flush(): string {
    return this.pending === '' ? '' : this.take('', true);
  }

  private take(piece: string, final: boolean): string {
    const view = new PlainText(this.pending + piece);
    const plain = view.plain;
    const full = this.context + plain;
    const before = this.context.length;
    // The rules the text sets off; a probe's continuation sets off none of its own.
    const rules = rulesFor(full.toLowerCase());
    let cut = final ? plain.length : Math.max(0, this.settledUpTo(full, rules) - before);
    // Never split a surrogate pair between what is stored and what waits.
    if (cut > 0 && cut < plain.length && isHighSurrogate(plain.charCodeAt(cut - 1))) cut--;
    const spans = clip(this.secrets.spans(full, rules), before, cut);
    const stored = replaceSpans(view, spans, cut);
    this.context = (this.context + plain.slice(0, cut)).slice(-CONTEXT_CHARS);
    this.pending = view.raw.slice(view.rawIndex(cut));
    return stored;
  }

  /**
   * Where the text stops being settled: the start of the earliest secret
   * that some continuation would carry past its end (or its length).
   */
  private settledUpTo(full: string, rules: readonly RedactionRule[]): number {
    let hold = full.length;
    /** A secret that `probe`, put after `full`, would carry past its end. */
    const crossing = (probe: string) => {
      for (const s of this.secrets.spans(full + probe, rules)) {
        if (s.start < hold && s.end > full.length) hold = s.start;
      }
    };
    // A run of PEM body characters could still turn out, at an END line, to
    // be a private key's tail (the private-key-tail rule), also when the text
    // ends inside that line.
    hold = Math.min(hold, keyTailStart(full, true));
    const endLine = PARTIAL_END_LINE.exec(full);
    if (endLine) hold = Math.min(hold, keyTailStart(full.slice(0, endLine.index), false));
    if (rules.length > 0 || this.secrets.hasConfigured) {
      for (const probe of ALWAYS) crossing(probe);
      for (const r of rules) for (const probe of BY_RULE[r.id] ?? []) crossing(probe);
    }
    return hold;
  }
}

/**
 * Where the part of `text` that may be a private key's body, still waiting
 * for its END line, starts: the first key-like word of the run of PEM body
 * characters `text` ends with, or the word in progress at its end (which
 * the next piece may make key-like) when `inProgress`. The short words of
 * prose before them are settled: a key body is made of base64 lines, not of
 * words. A run with neither is settled whole (`text.length`).
 */
function keyTailStart(text: string, inProgress: boolean): number {
  const run = pemBodyRunStart(text);
  let hold = text.length;
  if (inProgress) {
    let i = text.length;
    while (i > run && isBase64Char(text.charCodeAt(i - 1))) i--;
    if (i < text.length) hold = i;
  }
  for (const word of text.slice(run).matchAll(WORD)) {
    if (isKeyLike(word[0])) return Math.min(hold, run + (word.index ?? 0));
  }
  return hold;
}

/** The words of a PEM body run: base64 between its separators (space, `|`, escapes of line breaks). */
const WORD = /[A-Za-z0-9+/=]+/g;

/**
 * A word that may be a line of key material: long, or of some length and
 * not shaped like prose (a digit, a base64 sign, an inner capital).
 */
function isKeyLike(word: string): boolean {
  if (word.length >= 16) return true;
  return word.length >= 8 && /[0-9+/=]|.[A-Z]/.test(word);
}

function isBase64Char(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2f ||
    c === 0x3d
  );
}

/**
 * Where the run of PEM body characters that `text` ends with starts (as
 * the private-key-tail rule's PEM_BODY: base64, whitespace, `|`, and JSON
 * escapes of line breaks); `text.length` when there is none, or when it is
 * longer than the rule takes.
 */
function pemBodyRunStart(text: string): number {
  let i = text.length;
  const floor = Math.max(0, text.length - MAX_PEM_BODY - 1);
  while (i > floor) {
    if (isPemBodyChar(text.charCodeAt(i - 1))) i--;
    else if (i >= 2 && text[i - 2] === '\\' && 'nrt'.includes(text[i - 1] as string)) i -= 2;
    else break;
  }
  if (i === floor && floor > 0) return text.length;
  return i;
}

function isPemBodyChar(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x2b || // +
    c === 0x2f || // /
    c === 0x3d || // =
    c === 0x7c || // |
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0xfeff ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x1680 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** `spans` of `full` as spans of its part from `from`, cut off at `cut`. */
function clip(spans: readonly Span[], from: number, cut: number): Span[] {
  const out: Span[] = [];
  for (const s of spans) {
    const start = Math.max(0, s.start - from);
    const end = Math.min(cut, s.end - from);
    if (end > start) out.push({ start, end });
  }
  return out;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

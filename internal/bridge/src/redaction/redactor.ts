import type { EventData } from '@agent-bridge/providers';
import { mayHoldSecret } from './may-hold-secret.js';
import { PlainText } from './plain-text.js';
import { type RedactionRule, SECRET_KEY_NAME } from './redaction-rules.js';
import { rulesFor } from './rule-triggers.js';

/** Replaces secrets in one self-contained text before it is stored, logged or sent. */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** A secret found in a plain (escape-free) text: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** Nesting of event data followed before the rest is replaced whole. */
const MAX_DATA_DEPTH = 64;
/** Object keys longer than this are judged by their end only. */
const KEY_TAIL_CHARS = 64;

/**
 * Finds and replaces secrets with the built-in rules (redaction-rules.ts)
 * plus the configured `logging.redact_patterns`, whose whole match is the
 * secret. Matching sees the text without terminal escape sequences.
 */
export class SecretRedactor {
  private readonly configured: readonly RegExp[];

  constructor(configured: readonly RegExp[] = []) {
    // Own copies with the global flag: exec loops keep their state in lastIndex.
    this.configured = configured.map(
      (p) => new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`),
    );
  }

  /** Whether `logging.redact_patterns` added patterns of its own (their shape is unknown). */
  get hasConfigured(): boolean {
    return this.configured.length > 0;
  }

  /**
   * The secrets in `plain`, sorted and merged (overlapping or touching
   * spans become one). `rules`: the built-in rules to run, when the caller
   * already knows which of them its text sets off.
   */
  spans(plain: string, rules: readonly RedactionRule[] = rulesFor(plain.toLowerCase())): Span[] {
    const found: Span[] = [];
    for (const r of rules) collect(r.pattern, plain, found, true);
    for (const p of this.configured) collect(p, plain, found, false);
    return merge(found);
  }

  /** Redacts a self-contained text (an input, a message, a log line, a tail of output). */
  redact(text: string): string {
    if (text === '' || (this.configured.length === 0 && !mayHoldSecret(text))) return text;
    const view = new PlainText(text);
    return replaceSpans(view, this.spans(view.plain), view.plain.length);
  }

  /**
   * Redacts a text that may be one JSON document (a serialized log line),
   * keeping it valid JSON. The built-in rules never take a closing quote,
   * but a configured pattern may (`token:\\s*\\S+` runs into `"}`); when
   * redacting the text whole breaks a document that parsed before, its
   * strings are redacted one by one instead.
   */
  redactJson(text: string): string {
    const out = this.redact(text);
    if (out === text || parses(out)) return out;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return out;
    }
    const trailing = text.slice(text.trimEnd().length);
    return JSON.stringify(this.value(doc, 0)) + trailing;
  }

  /**
   * Redacts structured event data: every string, and every string or
   * number under a secret-like key (`{"api_key": "…"}` has its key and value
   * in separate strings, so text rules alone cannot see the pair).
   */
  redactData(data: EventData): EventData {
    return this.value(data, 0) as EventData;
  }

  private value(v: unknown, depth: number): unknown {
    if (typeof v === 'string') return this.redact(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DATA_DEPTH) return REDACTED;
    if (Array.isArray(v)) return v.map((x) => this.value(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] =
        (typeof x === 'string' || typeof x === 'number') &&
        SECRET_KEY_NAME.test(k.slice(-KEY_TAIL_CHARS))
          ? REDACTED
          : this.value(x, depth + 1);
    }
    return out;
  }
}

/** A Redactor with the built-in rules and `patterns` (as compiled from `logging.redact_patterns`). */
export function createRedactor(patterns: readonly RegExp[]): Redactor {
  const r = new SecretRedactor(patterns);
  return (text) => r.redact(text);
}

/** `text` with every secret the built-in rules find replaced (no configured patterns). */
export function redactSecrets(text: string): string {
  return new SecretRedactor().redact(text);
}

/**
 * The raw text of `view` up to plain position `upTo`, each span (which
 * must end by `upTo`) replaced by REDACTED. Escape sequences inside a span
 * go with it; those around it stay.
 */
export function replaceSpans(view: PlainText, spans: readonly Span[], upTo: number): string {
  const raw = view.raw;
  const end = view.rawIndex(upTo);
  if (spans.length === 0) return end === raw.length ? raw : raw.slice(0, end);
  let out = '';
  let at = 0;
  for (const s of spans) {
    const from = view.rawIndex(s.start);
    out += raw.slice(at, from) + REDACTED;
    at = view.rawEnd(s.end);
  }
  return out + raw.slice(at, end);
}

/**
 * Adds the secret of every match of `re` in `text` to `found`: the last
 * group that took part when `byGroup` (the built-in convention), else the
 * whole match (configured patterns).
 */
function collect(re: RegExp, text: string, found: Span[], byGroup: boolean): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const end = m.index + m[0].length;
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    found.push({ start: byGroup ? end - secretLength(m) : m.index, end });
  }
}

/** Length of the secret in a match: the last group that took part, or the whole match. */
function secretLength(m: RegExpExecArray): number {
  for (let i = m.length - 1; i >= 1; i--) {
    const g = m[i];
    if (g !== undefined) return g.length;
  }
  return m[0].length;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function merge(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [spans[0] as Span];
  for (let i = 1; i < spans.length; i++) {
    const s = spans[i] as Span;
    const last = out[out.length - 1] as Span;
    if (s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

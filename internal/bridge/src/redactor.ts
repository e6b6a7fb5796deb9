/** Replaces secrets in text before it is stored, logged or sent. */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** Built-in patterns, on top of the configured ones: private keys, bearer tokens, JWT-shaped strings. */
const BUILTIN: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g,
  /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g,
];

/**
 * Builds a redactor from the configured patterns plus the built-in ones.
 * Each match is replaced by "[REDACTED]". A cheap pre-check skips lines that
 * no pattern could match, because this runs on every output line.
 */
export function createRedactor(patterns: readonly RegExp[]): Redactor {
  const all = [
    ...BUILTIN,
    ...patterns.map((p) => new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`)),
  ];
  return (text) => {
    let out = text;
    for (const re of all) {
      re.lastIndex = 0;
      if (re.test(out)) {
        re.lastIndex = 0;
        out = out.replace(re, REDACTED);
      }
    }
    return out;
  };
}

/** Replaces secrets in text before it is stored, logged or sent. */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/**
 * Built-in patterns, always on besides the configured ones (gitleaks-style):
 * PEM private keys, bearer tokens, JWT-shaped strings, AWS access key ids,
 * GitHub tokens, and `api_key=` / `token:` / `secret=` / `password=` pairs.
 * All are linear-time (no nested quantifiers), since they run on every line.
 */
const BUILTIN: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g,
  /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{36}\b|\bgithub_pat_[0-9A-Za-z_]{22,}/g,
  /\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd)\s*[:=]\s*\S+/gi,
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

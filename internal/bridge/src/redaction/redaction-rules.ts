/**
 * The built-in secret rules: our own table, written for this daemon (see
 * README.md, "Redaction", for why no rule library is used). Every rule runs
 * on every agent output line that passes the trigger check, so each pattern
 * is linear-time by construction:
 *
 * - every repetition is bounded, and no quantified group contains another
 *   quantifier whose matches could overlap (no `(a+)+`, no `(a|a)*`);
 * - a token rule starts only where a run of its characters starts (a
 *   negative lookbehind), so a long run is scanned once, not once per
 *   position inside it;
 * - a secret value ends the match and nothing has to follow it, so a greedy
 *   value never backtracks.
 *
 * The longest match any rule can make is MAX_MATCH_CHARS; the stream
 * redactor relies on it to hold back enough of a split line.
 *
 * Without capture groups the whole match is the secret. With groups, the
 * last group that took part is the secret and it ends the match: the key,
 * scheme or prefix before it stays readable ("api_key=[REDACTED]"), which
 * also keeps JSON valid, since no value class takes a closing quote.
 */
export interface RedactionRule {
  /** Stable name, used in docs and tests. */
  readonly id: string;
  /** What it finds, in words. */
  readonly finds: string;
  /** Global (`g`) and linear-time; see above for what counts as the secret. */
  readonly pattern: RegExp;
  /**
   * Lower-case strings of which every match contains at least one: the rule
   * runs only on a line that contains one (a cheap search per rule).
   */
  readonly triggers: readonly string[];
}

/** Upper bound of the length of any rule's match, in UTF-16 units. */
export const MAX_MATCH_CHARS = 16_384 + 256;

/** Names whose value is a secret: the end of a key such as `ANTHROPIC_API_KEY` or `"client_secret"`. */
const SECRET_KEY =
  '(?:(?:api|access|secret|private|signing|auth|encryption)[_.-]?key|token|secret|passw(?:or)?d|passphrase|credentials?|authorization)';
/** `=`, `:`, `:=` or `=>`, with a little space around it. */
const ASSIGN = '\\s{0,4}(?:=>|:=|[:=])\\s{0,4}';
/**
 * A quoted value, as the last group: JSON/shell double quotes (escapes
 * included), a JSON-escaped `\"…\"` (inside a serialized JSON string, or
 * one serialized into another), or single quotes. Each stops before its closing quote.
 */
const QUOTED_VALUE = String.raw`(?:"((?:[^"\\\r\n]|\\.){1,8192})|\\{1,7}"([^"\\\r\n]{1,8192})|'([^'\\\r\n]{1,8192}))`;
/** An unquoted value: up to whitespace, a quote, a separator or a bracket. */
const BARE_VALUE = String.raw`([^\s"'\\,;&<>(){}[\]=\x60][^\s"'\\,;&<>(){}[\]\x60]{0,8191})`;
/** PEM labels: "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK", … */
const PEM_LABEL = '[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----';
/**
 * One unit of a PEM body: base64, whitespace, or a JSON/C escape of a line
 * break (a key inside a serialized string). A lone backslash or a quote
 * ends the body, so a redacted JSON string keeps its closing quote.
 */
const PEM_BODY = String.raw`(?:[A-Za-z0-9+/=\s|]|\\[nrt])`;

const rule = (
  id: string,
  finds: string,
  triggers: readonly string[],
  pattern: RegExp,
): RedactionRule => ({ id, finds, pattern, triggers });

/** The words every SECRET_KEY contains, lower-cased. */
const SECRET_KEY_TRIGGERS = [
  'key',
  'token',
  'secret',
  'passw',
  'passphrase',
  'credential',
  'authorization',
];

export const BUILTIN_RULES: readonly RedactionRule[] = [
  rule(
    'private-key',
    'a PEM private key (any label: RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK) with its body, up to its END line or, when that is missing, the base64 that follows',
    ['-----begin'],
    new RegExp(
      String.raw`-----BEGIN ${PEM_LABEL}(?:(?:[^-"\\]|\\[^]|-(?!----)){0,16384}-----END ${PEM_LABEL}|${PEM_BODY}{0,16384})`,
      'g',
    ),
  ),
  rule(
    'private-key-tail',
    'the end of a PEM private key whose BEGIN line is not in the text (a cut-off tail): the base64 run before its END line',
    ['-----end'],
    new RegExp(String.raw`(?<![A-Za-z0-9+/=\s|\\])${PEM_BODY}{0,16384}-----END ${PEM_LABEL}`, 'g'),
  ),
  rule(
    'aws-access-key-id',
    'AWS access key ids (AKIA…, ASIA… and the other key-id prefixes)',
    ['akia', 'asia', 'aroa', 'aida', 'agpa', 'anpa', 'anva', 'aipa', 'apka', 'abia', 'acca'],
    /(?<![A-Za-z0-9])(?:AKIA|ASIA|AROA|AIDA|AGPA|ANPA|ANVA|AIPA|APKA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  ),
  rule(
    'aws-secret-access-key',
    'a 40-character AWS secret access key next to its name (aws_secret_access_key, SecretAccessKey, …), also separated by spaces only',
    ['secret'],
    /(?<![A-Za-z0-9])(?:aws_?)?secret_?(?:access_?)?key(?:\\?["'])?(?:\s{0,4}(?:=>|:=|[:=])\s{0,4}|\s{1,4})(?:\\?["'])?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
  ),
  rule(
    'github-token',
    'GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained (github_pat_)',
    ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})/g,
  ),
  rule(
    'anthropic-api-key',
    'Anthropic keys and tokens (sk-ant-…), also glued to the text before them',
    ['sk-ant-'],
    // No lookbehind: the prefix is distinctive enough to trust anywhere, and
    // a failed match stops within 20 characters of it, so this stays linear.
    /sk-ant-[A-Za-z0-9_-]{20,300}/g,
  ),
  rule(
    'openai-api-key',
    'OpenAI-style keys (sk-…, sk-proj-…, sk-svcacct-…)',
    ['sk-'],
    /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,300}/g,
  ),
  rule(
    'google-api-key',
    'Google API keys (AIza…)',
    ['aiza'],
    /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g,
  ),
  rule(
    'slack-token',
    'Slack tokens (xoxb-, xoxp-, xoxa-, xoxe-, xoxo-, xoxr-, xoxs-, xapp-)',
    ['xox', 'xapp-'],
    /(?<![A-Za-z0-9-])(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{10,250}/g,
  ),
  rule(
    'slack-webhook',
    'the secret path of a Slack webhook URL',
    ['hooks.slack.com'],
    /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9_/-]{8,256})/gi,
  ),
  rule(
    'stripe-key',
    'Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_)',
    ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'],
    /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16,247}/g,
  ),
  rule(
    'npm-token',
    'npm access tokens (npm_…)',
    ['npm_'],
    /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
  ),
  rule(
    'gitlab-token',
    'GitLab personal access tokens (glpat-…)',
    ['glpat-'],
    /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,255}/g,
  ),
  rule(
    'huggingface-token',
    'Hugging Face tokens (hf_…)',
    ['hf_'],
    /(?<![A-Za-z0-9_])hf_[A-Za-z]{30,255}/g,
  ),
  rule(
    'jwt',
    'JSON Web Tokens (eyJ….eyJ….signature)',
    ['eyj'],
    /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{2,2048}\.ey[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,2048}/g,
  ),
  rule(
    'bearer-token',
    'the credentials after "Bearer " (16 characters or more)',
    ['bearer'],
    /(?<![A-Za-z0-9])bearer\s{1,4}([A-Za-z0-9._~+/=-]{16,4096})/gi,
  ),
  rule(
    'authorization-header',
    'the value of an Authorization or Proxy-Authorization header, scheme included',
    ['authorization'],
    /(?<![A-Za-z0-9_-])(?:proxy-)?authorization\s{0,4}[:=]\s{0,4}((?:[A-Za-z][A-Za-z0-9-]{0,15} {1,4})?[^\s"'\\,;]{1,8192})/gi,
  ),
  rule(
    'cookie-header',
    'the value of a Cookie or Set-Cookie header, to the end of the line',
    ['cookie'],
    /(?<![A-Za-z0-9_-])(?:set-)?cookie\s{0,4}:\s{0,4}([^\r\n"\\]{1,4096})/gi,
  ),
  rule(
    'url-password',
    'the password in a URL (scheme://user:password@host)',
    ['://'],
    /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s/?#@:"'\\]{0,256}:([^\s/?#@"'\\]{1,256})(?=@)/g,
  ),
  rule(
    'secret-json-pair',
    'the quoted value of a quoted secret-like key: "api_key": "…", \\"token\\": \\"…\\" (escaped up to three times over), \'password\': \'…\'',
    SECRET_KEY_TRIGGERS,
    new RegExp(String.raw`${SECRET_KEY}(?:\\{0,7}"|')${ASSIGN}${QUOTED_VALUE}`, 'gi'),
  ),
  rule(
    'secret-assignment',
    'the value of an unquoted secret-like key: api_key=…, token: …, PASSWORD="…", --client-secret=…',
    SECRET_KEY_TRIGGERS,
    new RegExp(`${SECRET_KEY}${ASSIGN}(?:${QUOTED_VALUE}|${BARE_VALUE})`, 'gi'),
  ),
];

/** A line that ends with a PEM private-key BEGIN line: the key's body follows on the next lines. */
export const PEM_BEGIN_AT_END = new RegExp(String.raw`-----BEGIN ${PEM_LABEL}\s{0,64}$`);

/** The END line of a PEM private key. */
export const PEM_END = new RegExp(`-----END ${PEM_LABEL}`);

/** An object key whose value is a secret, for structured event data (`{"api_key": "…"}`). */
export const SECRET_KEY_NAME = new RegExp(`(?:${SECRET_KEY}|cookie)$`, 'i');

import { describe, expect, it } from 'vitest';
import { alnum, CASES, type Case } from '../testing/redaction-cases.js';
import { BUILTIN_RULES, type RedactionRule } from './redaction-rules.js';
import { REDACTED, SecretRedactor } from './redactor.js';

const redactor = new SecretRedactor();

/** `text` with only `rule` applied, as the redactor would (its spans, replaced). */
function only(rule: RedactionRule, text: string): string {
  let out = text;
  rule.pattern.lastIndex = 0;
  const matches = [...text.matchAll(rule.pattern)];
  for (const m of matches.reverse()) {
    const groups = m.slice(1).filter((g) => g !== undefined);
    const secret = groups.at(-1) ?? m[0];
    const end = (m.index ?? 0) + m[0].length;
    out = out.slice(0, end - secret.length) + REDACTED + out.slice(end);
  }
  return out;
}

describe('built-in redaction rules', () => {
  it('has a true positive and a near miss for every rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(BUILTIN_RULES.map((r) => r.id).sort());
  });

  for (const rule of BUILTIN_RULES) {
    const c = CASES[rule.id] as Case;
    it(`${rule.id}: finds its secret alone, and leaves its near miss alone`, () => {
      const byRule = only(rule, c.hit);
      expect(byRule).not.toContain(c.secret);
      expect(byRule).toContain(REDACTED);
      const all = redactor.redact(c.hit);
      expect(all).not.toContain(c.secret);
      expect(redactor.redact(c.near)).toBe(c.near);
      // Every rule's triggers are in the lower-cased text it matches.
      expect(rule.triggers.some((t) => c.hit.toLowerCase().includes(t))).toBe(true);
    });
  }

  it('keeps the key, scheme or prefix in front of a secret readable', () => {
    expect(redactor.redact('api_key=abcdef123456')).toBe(`api_key=${REDACTED}`);
    expect(redactor.redact('Authorization: Bearer abcdefghijklmnopqrstu')).toBe(
      `Authorization: ${REDACTED}`,
    );
    expect(redactor.redact('token: "abc def"')).toBe(`token: "${REDACTED}"`);
  });

  it('redacts private keys of every label, whole', () => {
    for (const label of [
      'PRIVATE KEY',
      'RSA PRIVATE KEY',
      'EC PRIVATE KEY',
      'DSA PRIVATE KEY',
      'OPENSSH PRIVATE KEY',
      'ENCRYPTED PRIVATE KEY',
      'PGP PRIVATE KEY BLOCK',
    ]) {
      const key = `-----BEGIN ${label}-----\nProc-Type: 4,ENCRYPTED\n\n${alnum(64)}\n=ab12\n-----END ${label}-----`;
      expect(redactor.redact(`before\n${key}\nafter`)).toBe(`before\n${REDACTED}\nafter`);
    }
  });
});

describe('redaction of JSON text', () => {
  const cases: unknown[] = [
    { api_key: 'abc123def456', note: 'x' },
    { msg: 'using Authorization: Bearer abcdefghijklmnopqrstuvwxyz now' },
    { nested: { text: `-----BEGIN PRIVATE KEY-----\n${alnum(64)}"\n` } },
    { list: ['-----BEGIN EC PRIVATE KEY-----', { tail: '-----END EC PRIVATE KEY-----' }] },
    { line: 'config {"token": "abc123def456", "password": "p\\"q"}' },
    { url: 'postgres://app:pa55word@db:5432/x', cookie: 'Cookie: a=b; c=d' },
    { err: `sk-ant-api03-${alnum(40)}\\` },
  ];

  it('stays valid JSON and loses the secrets', () => {
    for (const doc of cases) {
      const line = `${JSON.stringify(doc)}\n`;
      const out = redactor.redactJson(line);
      expect(() => JSON.parse(out), out).not.toThrow();
      expect(out).toContain(REDACTED);
      for (const s of ['abc123def456', 'pa55word', 'abcdefghijklmnopqrstuvwxyz', alnum(40)]) {
        expect(out).not.toContain(s);
      }
    }
  });

  it('stays valid JSON when a configured pattern runs into the closing quote', () => {
    const greedy = new SecretRedactor([/(?:customer)\s*[:=]\s*\S+/gi]);
    const out = greedy.redactJson(`${JSON.stringify({ msg: 'customer=C-99', level: 30 })}\n`);
    expect(JSON.parse(out)).toEqual({ msg: REDACTED, level: 30 });
    expect(out.endsWith('\n')).toBe(true);
  });
});

describe('adversarial lines', () => {
  const MIB = 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB);

  // Time is measured by the benchmark (bench/src/redaction.ts), not here:
  // these check that each line comes through intact, or redacted as a rule says.
  it('leave 1 MiB lines of near misses intact', () => {
    for (const unit of [
      'a',
      'eyJ',
      '-----BEGIN ',
      '"token": "',
      'ghp_',
      'AKIA',
      'https://a:',
      'bearer ',
      'Bearer a',
      'eyJa.eyJb.',
      '-----END ',
      '\x1b[31m',
      '\x1b[',
    ]) {
      const line = fill(unit);
      expect(redactor.redact(line) === line, JSON.stringify(unit)).toBe(true);
    }
  });

  it('redact 1 MiB lines of key-shaped units where a rule matches, adding nothing else', () => {
    for (const unit of ['sk-', 'xoxb-', 'api_key=', 'token=', '"api_key":"x","']) {
      const out = redactor.redact(fill(unit));
      expect(out).toContain(REDACTED);
      expect(out.replaceAll(REDACTED, '')).toMatch(
        new RegExp(`^[${unit.replace(/[\]\\^-]/g, '\\$&')}]*$`),
      );
    }
  });

  it('redact a 1 MiB base64 run after a BEGIN line in bounded pieces', () => {
    const line = `-----BEGIN PRIVATE KEY-----${fill('Ab')}`;
    const out = redactor.redact(line);
    expect(out.startsWith(REDACTED)).toBe(true);
    expect(out.length).toBeLessThan(line.length);
  });
});

import { describe, expect, it } from 'vitest';
import { CASES } from '../testing/redaction-cases.js';
import { mayHoldSecret } from './may-hold-secret.js';
import { BUILTIN_RULES } from './redaction-rules.js';
import { SecretRedactor } from './redactor.js';
import { rulesFor } from './rule-triggers.js';
import { StreamRedactor } from './stream-redactor.js';

const triggers = [...new Set(BUILTIN_RULES.flatMap((r) => r.triggers))];

/** A deterministic pseudo-random source, so a failure is reproducible from the seed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('mayHoldSecret (the prefilter before the rules)', () => {
  it('answers true for every true positive and every trigger, in any case and anywhere in a line', () => {
    for (const c of Object.values(CASES)) expect(mayHoldSecret(c.hit), c.hit).toBe(true);
    for (const t of triggers) {
      for (const form of [t, t.toUpperCase(), t[0]!.toUpperCase() + t.slice(1)]) {
        expect(mayHoldSecret(form), form).toBe(true);
        expect(mayHoldSecret(`some output ${form} and more`), form).toBe(true);
        expect(mayHoldSecret(`${'x'.repeat(199)}${form}`), form).toBe(true);
      }
    }
  });

  it('never answers false where the rules would run (random lines built from pieces of triggers)', () => {
    const next = random(7);
    const pieces = [
      ...triggers.flatMap((t) => [t, t.slice(0, -1), t.slice(1)]),
      ' ',
      'x',
      'A',
      '=',
    ];
    let flagged = 0;
    for (let i = 0; i < 20_000; i++) {
      let line = '';
      while (line.length < 40) {
        const p = pieces[Math.floor(next() * pieces.length)]!;
        line += next() < 0.5 ? p : p.toUpperCase();
      }
      if (rulesFor(line.toLowerCase()).length > 0) {
        flagged++;
        expect(mayHoldSecret(line), line).toBe(true);
      }
    }
    expect(flagged).toBeGreaterThan(1000);
  });

  it('sends escape sequences and non-ASCII text to the full path (they may hide or fold into a trigger)', () => {
    expect(mayHoldSecret('to\x1b[31mken')).toBe(true);
    expect(mayHoldSecret('plain \x9b31m text')).toBe(true);
    // KELVIN SIGN lower-cases to an ASCII "k".
    expect(mayHoldSecret('api_\u212Aey')).toBe(true);
    expect(mayHoldSecret('café')).toBe(true);
  });

  it('answers false for ordinary output with no trigger in it', () => {
    for (const line of [
      '',
      '42 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      'Compiling src/main.rs (debug) in 1.2s',
      'ok 12 tests/unit/math.test.ts (12 checks)',
      '-- two dashes -- are not five',
    ]) {
      expect(mayHoldSecret(line), line).toBe(false);
    }
  });
});

describe('the fast path stores exactly what the full path would', () => {
  it('for stream lines and single texts, over lines with and without secrets', () => {
    const secrets = new SecretRedactor();
    const fast = new StreamRedactor(secrets);
    const lines = [
      ...Object.values(CASES).flatMap((c) => [...c.hit.split('\n'), c.near]),
      'ordinary line 1',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu',
      '-----END RSA PRIVATE KEY-----',
      'ordinary line 2',
    ];
    // The reference: a configured pattern that never matches turns the fast path off.
    const slow = new StreamRedactor(new SecretRedactor([/(?!)/]));
    const slowSecrets = new SecretRedactor([/(?!)/]);
    for (const line of lines) {
      expect(fast.next(line, false)).toBe(slow.next(line, false));
      expect(secrets.redact(line)).toBe(slowSecrets.redact(line));
    }
  });
});

import type { AgentEvent } from '@agent-bridge/providers';
import { LineSplitter } from '@agent-bridge/providers/host';
import { describe, expect, it } from 'vitest';
import { EventRedactor } from './event-redactor.js';
import { REDACTED, SecretRedactor } from './redactor.js';
import { CARRY_CHARS, PEM_MAX_CHARS, PEM_MAX_LINES, StreamRedactor } from './stream-redactor.js';

const secrets = new SecretRedactor();
const KEY = `sk-ant-api03-${'Zq9'.repeat(30)}`;
const BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7'.padEnd(64, 'x');

/** Feeds whole lines to a fresh stream; returns what it stores for each. */
function lines(input: readonly string[], r = new StreamRedactor(secrets)): string[] {
  return input.map((l) => r.next(l, false));
}

/** Pushes `raw` through the daemon's own line splitter (64 KiB pieces) and a stream redactor. */
function piecesOf(raw: string): { text: string; continued: boolean }[] {
  const r = new StreamRedactor(secrets);
  const out: { text: string; continued: boolean }[] = [];
  const splitter = new LineSplitter((text, continued) =>
    out.push({ text: r.next(text, continued), continued }),
  );
  splitter.push(Buffer.from(raw));
  splitter.flush();
  return out;
}

describe('StreamRedactor', () => {
  it('redacts a PEM key printed line by line, through its END line, and nothing after', () => {
    const stored = lines([
      'writing key:',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      BODY,
      BODY,
      'AAAA==',
      '-----END OPENSSH PRIVATE KEY----- written',
      'next line',
    ]);
    expect(stored).toEqual([
      'writing key:',
      REDACTED,
      REDACTED,
      REDACTED,
      REDACTED,
      `${REDACTED} written`,
      'next line',
    ]);
  });

  it('ends an unterminated block after PEM_MAX_LINES lines', () => {
    const input = [
      '-----BEGIN RSA PRIVATE KEY-----',
      ...Array.from({ length: PEM_MAX_LINES + 3 }, (_, i) => `line ${i}`),
    ];
    const stored = lines(input);
    expect(stored.slice(1, PEM_MAX_LINES + 1).every((l) => l === REDACTED)).toBe(true);
    expect(stored.slice(PEM_MAX_LINES + 1)).toEqual([
      `line ${PEM_MAX_LINES}`,
      `line ${PEM_MAX_LINES + 1}`,
      `line ${PEM_MAX_LINES + 2}`,
    ]);
  });

  it('ends an unterminated block after PEM_MAX_CHARS characters', () => {
    const long = 'y'.repeat(1000);
    const stored = lines(['-----BEGIN EC PRIVATE KEY-----', ...Array(80).fill(long)]);
    const blanked = Math.ceil(PEM_MAX_CHARS / long.length);
    expect(stored.slice(1, 1 + blanked).every((l) => l === REDACTED)).toBe(true);
    expect(stored.slice(1 + blanked).every((l) => l === long)).toBe(true);
  });

  it('matches through terminal escapes, keeping the escapes outside the secret', () => {
    const [coloured, broken, plain] = lines([
      `\x1b[31mkey: ${KEY}\x1b[0m done`,
      `${KEY.slice(0, 10)}\x1b[1m${KEY.slice(10)}\x1b[0m`,
      '\x1b[32mok\x1b[0m',
    ]);
    expect(coloured).toBe(`\x1b[31mkey: ${REDACTED}\x1b[0m done`);
    expect(broken).toBe(`${REDACTED}\x1b[0m`);
    expect(plain).toBe('\x1b[32mok\x1b[0m');
    const pem = lines([
      '\x1b[33m-----BEGIN PRIVATE KEY-----\x1b[0m',
      `\x1b[33m${BODY}`,
      '-----END PRIVATE KEY-----\x1b[0m',
      'after',
    ]);
    expect(pem).toEqual([
      `\x1b[33m${REDACTED}\x1b[0m`,
      `\x1b[33m${REDACTED}`,
      `${REDACTED}\x1b[0m`,
      'after',
    ]);
  });

  it('finds a secret cut by the 64 KiB line limit, wherever the cut falls', () => {
    const LIMIT = 64 * 1024;
    // Offsets into the secret where the cut falls: inside "sk-" (the trigger), just after it, deep inside.
    for (const at of [1, 2, 3, 4, 7, 20, KEY.length - 1]) {
      const raw = `${'a'.repeat(LIMIT - at - 1)} ${KEY} ${'b'.repeat(LIMIT + 500)}`;
      const out = piecesOf(`${raw}\n`);
      expect(out.map((p) => p.continued)).toEqual([true, true, false]);
      expect(out.map((p) => p.text).join('')).toBe(secrets.redact(raw));
      for (const p of out) expect(p.text).not.toContain(KEY.slice(0, 12));
    }
  });

  it('finds a PEM key and an escape sequence cut by the line limit', () => {
    const LIMIT = 64 * 1024;
    const pem = `-----BEGIN PRIVATE KEY-----\\n${BODY}\\n-----END PRIVATE KEY-----`;
    const raw = `${'c'.repeat(LIMIT - 10)}\x1b[31m${pem}\x1b[0m tail`;
    const out = piecesOf(`${raw}\n`);
    const joined = out.map((p) => p.text).join('');
    expect(joined).toBe(`${'c'.repeat(LIMIT - 10)}\x1b[31m${REDACTED}\x1b[0m tail`);
    expect(joined).not.toContain(BODY.slice(0, 16));
  });

  it('holds back no more than it must: short of CARRY_CHARS, a piece of plain text is stored', () => {
    const r = new StreamRedactor(secrets);
    const piece = 'p'.repeat(CARRY_CHARS + 100);
    expect(r.next(piece, true)).toBe('p'.repeat(100));
    expect(r.next('q', false)).toBe(`${'p'.repeat(CARRY_CHARS)}q`);
  });

  it('flushes what it holds, redacted', () => {
    const r = new StreamRedactor(secrets);
    expect(r.next(`${'z'.repeat(10)} ${KEY}`, true)).toBe('');
    expect(r.flush()).toBe(`${'z'.repeat(10)} ${REDACTED}`);
    expect(r.flush()).toBe('');
  });
});

describe('EventRedactor', () => {
  it('keeps stdout and stderr apart: a PEM block on one does not blank the other', () => {
    const r = new EventRedactor(secrets);
    const one = (ev: AgentEvent) => {
      const [only, ...more] = r.events(ev);
      expect(more).toEqual([]);
      return only!.text;
    };
    const out = (text: string) => one({ type: 'STDOUT', stream: 'stdout', text });
    const err = (text: string) => one({ type: 'STDERR', stream: 'stderr', text });
    expect(out('-----BEGIN PRIVATE KEY-----')).toBe(REDACTED);
    expect(err('warning: slow disk')).toBe('warning: slow disk');
    expect(out(BODY)).toBe(REDACTED);
    expect(out('-----END PRIVATE KEY-----')).toBe(REDACTED);
    expect(out('after')).toBe('after');
  });

  it('redacts input echoes, errors and data strings on their own, with secret keys in data', () => {
    const r = new EventRedactor(secrets);
    const [ev] = r.events({
      type: 'TOOL_CALL',
      stream: 'system',
      text: `run with ${KEY}`,
      error: `failed: token=${'t'.repeat(20)}`,
      data: { args: { api_key: 'plainvalue', cmd: `echo ${KEY}` }, n: 3 },
    });
    expect(ev).toEqual({
      type: 'TOOL_CALL',
      stream: 'system',
      text: `run with ${REDACTED}`,
      error: `failed: token=${REDACTED}`,
      data: { args: { api_key: REDACTED, cmd: `echo ${REDACTED}` }, n: 3 },
    });
  });
});

import type { AgentEvent } from '@agent-bridge/providers';
import { describe, expect, it } from 'vitest';
import { alnum, CASES } from '../testing/redaction-cases.js';
import { DeltaRedactor } from './delta-redactor.js';
import { EventRedactor } from './event-redactor.js';
import { BUILTIN_RULES } from './redaction-rules.js';
import { REDACTED, SecretRedactor } from './redactor.js';

const secrets = new SecretRedactor();

/** A small deterministic generator, so a failing split can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `text` in pieces at `cuts` (sorted offsets inside it). */
const piecesAt = (text: string, cuts: number[]) =>
  [0, ...cuts].map((from, i) => text.slice(from, cuts[i] ?? text.length));

/** Every way to cut `text` in two, and `count` random ways to cut it in 3, 4 and 5 pieces. */
function splits(text: string, count: number, seed: number): string[][] {
  const out: string[][] = [];
  for (let c = 1; c < text.length; c++) out.push(piecesAt(text, [c]));
  const rand = random(seed);
  for (const n of [3, 4, 5]) {
    for (let i = 0; i < count; i++) {
      const cuts = new Set<number>();
      while (cuts.size < n - 1) cuts.add(1 + Math.floor(rand() * (text.length - 1)));
      out.push(
        piecesAt(
          text,
          [...cuts].sort((a, b) => a - b),
        ),
      );
    }
  }
  return out;
}

/** Streams `pieces` as one message's deltas, then the message: what is stored of the deltas. */
function streamed(pieces: string[]): { stored: string[]; message: string } {
  const r = new EventRedactor(secrets);
  const stored: string[] = [];
  for (const text of pieces) {
    for (const ev of r.events({
      type: 'AGENT_MESSAGE_DELTA',
      stream: 'stdout',
      text,
      turnId: 't',
    })) {
      stored.push(ev.text);
    }
  }
  let message = '';
  for (const ev of r.events({
    type: 'AGENT_MESSAGE',
    stream: 'stdout',
    text: pieces.join(''),
    turnId: 't',
  })) {
    if (ev.type === 'AGENT_MESSAGE_DELTA') stored.push(ev.text);
    else message = ev.text;
  }
  return { stored, message };
}

/** The 6-character windows of a secret: none may be seen, whole or split. */
const windows = (secret: string) =>
  Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));

describe('a secret streamed in pieces (AGENT_MESSAGE_DELTA)', () => {
  it('covers every built-in rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(BUILTIN_RULES.map((r) => r.id).sort());
  });

  it.each(Object.entries(CASES))(
    '%s: split at every offset into 2 pieces, and at random into 3 to 5, no piece shows any of it',
    (id, c) => {
      const text = `note ${c.hit} end`;
      const seen = windows(c.secret);
      for (const pieces of splits(text, 40, id.length)) {
        const { stored, message } = streamed(pieces);
        const joined = stored.join('');
        const what = `${id}, pieces ${JSON.stringify(pieces)} → ${JSON.stringify(stored)}`;
        for (const w of seen) {
          expect(joined.includes(w), what).toBe(false);
          for (const s of stored) expect(s.includes(w), what).toBe(false);
        }
        expect(joined, what).toContain(REDACTED);
        // Nothing beyond what the whole message loses: the words before the
        // secret survive (unless the rule takes them too, as a PEM tail's).
        const whole = secrets.redact(text);
        if (whole.startsWith('note ')) expect(joined.startsWith('note '), what).toBe(true);
        expect(message).toBe(whole);
      }
    },
  );

  it('a one-line PEM key in 3-character pieces (as models stream): nothing of its body is stored', () => {
    const body = `MC4CAQAwBQYDK2VwBCIEI${alnum(40)}`;
    const text = `run: echo -----BEGIN PRIVATE KEY-----${body}-----END PRIVATE KEY----- | ssh-add -`;
    const pieces = text.match(/.{1,3}/gs) ?? [];
    const joined = streamed(pieces).stored.join('');
    for (const w of windows(body)) expect(joined, w).not.toContain(w);
    // The label may be stored before the key is recognised (and the key's
    // parts redacted piece by piece); the key itself never is.
    expect(joined).toMatch(
      /^run: echo -{0,5}(?:BEGIN [A-Z ]*-{0,5})?(?:\[REDACTED\])+ \| ssh-add -$/,
    );
  });
});

describe('DeltaRedactor', () => {
  it('stores plain prose as it comes, up to the word in progress', () => {
    const r = new DeltaRedactor(secrets);
    // A word still being written could grow into a key line whose END line
    // is still to come: it waits for the next character that ends it.
    expect(r.next('Hello, wor')).toBe('Hello, ');
    expect(r.next('ld. The tests')).toBe('world. The ');
    expect(r.next(' pass.')).toBe('tests pass.');
    expect(r.next(' w0 w1 w2 ')).toBe(' w0 w1 w2 ');
    expect(r.flush()).toBe('');
  });

  it('holds from the first key-like word of a run that may still end in a key END line', () => {
    const r = new DeltaRedactor(secrets);
    const line = `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${alnum(32)}`;
    // Prose words before it are stored; the key line and all after it wait.
    expect(r.next(`the tail is ${line}\n${alnum(20)} and`)).toBe('the tail is ');
    expect(r.next(' more')).toBe('');
    expect(r.next('\n-----END PRIVATE KEY-----.')).toBe(`${REDACTED}.`);
    const short = new DeltaRedactor(secrets);
    // A word of eight with a digit may be a key line's start: held as well.
    expect(short.next('see aB3dEf9h then')).toBe('see ');
    expect(short.next(', ok.')).toBe('aB3dEf9h then, ok.');
  });

  it('holds a secret in progress and stores it redacted once it ends, keeping the key name', () => {
    const r = new DeltaRedactor(secrets);
    const value = alnum(24);
    const out = [
      r.next('export API_KEY='),
      r.next(value.slice(0, 10)),
      r.next(value.slice(10)),
      r.next('; echo ok.'),
    ];
    expect(out.join('')).toBe(`export API_KEY=${REDACTED}; echo ok.`);
    for (const piece of out) expect(piece).not.toMatch(/A1b2/);
  });

  it('at the end of the message stores what was held, redacted', () => {
    const r = new DeltaRedactor(secrets);
    expect(r.next(`token: ${alnum(30)}`)).toBe('token: ');
    expect(r.flush()).toBe(REDACTED);
  });
});

describe('EventRedactor with streamed messages', () => {
  const delta = (text: string, data?: AgentEvent['data']): AgentEvent => ({
    type: 'AGENT_MESSAGE_DELTA',
    stream: 'stdout',
    text,
    turnId: 't1',
    ...(data ? { data } : {}),
  });

  it('stores held text as a piece of its own before the next event of another kind', () => {
    const r = new EventRedactor(secrets);
    expect(r.events(delta('calling the tool, then', { index: 0 }))).toEqual([
      delta('calling the tool, ', { index: 0 }),
    ]);
    const out = r.events({ type: 'TOOL_CALL', stream: 'system', text: 'Bash', turnId: 't1' });
    expect(out.map((e) => [e.type, e.text, e.data])).toEqual([
      ['AGENT_MESSAGE_DELTA', 'then', { index: 0 }],
      ['TOOL_CALL', 'Bash', undefined],
    ]);
  });

  it('keeps the pieces of two messages apart (by turn and the provider`s keys)', () => {
    const r = new EventRedactor(secrets);
    const value = alnum(30);
    const stored = [
      ...r.events(delta(`a: sk-proj-${value.slice(0, 12)}`, { index: 0 })),
      ...r.events(delta('other text, ', { index: 1 })),
      ...r.events(delta(`${value.slice(12)}.`, { index: 0 })),
      ...r.events({ type: 'TURN_COMPLETED', stream: 'system', text: '', turnId: 't1' }),
    ];
    const of = (i: number) =>
      stored
        .filter((e) => e.type === 'AGENT_MESSAGE_DELTA' && e.data?.index === i)
        .map((e) => e.text)
        .join('');
    expect(of(0)).toBe(`a: ${REDACTED}.`);
    expect(of(1)).toBe('other text, ');
    expect(stored.at(-1)?.type).toBe('TURN_COMPLETED');
  });
});

import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.js';

function collect(max?: number) {
  const lines: [string, boolean][] = [];
  const s = new LineSplitter((t, c) => lines.push([t, c]), max);
  return { s, lines };
}

describe('LineSplitter', () => {
  it('reassembles a line split across writes', () => {
    const { s, lines } = collect();
    s.push(Buffer.from('ab'));
    s.push(Buffer.from('c'));
    s.push(Buffer.from('def\nsecond\nthi'));
    expect(lines).toEqual([
      ['abcdef', false],
      ['second', false],
    ]);
    s.flush();
    expect(lines.at(-1)).toEqual(['thi', false]);
  });

  it('replaces invalid UTF-8 with U+FFFD and keeps multibyte characters split across writes', () => {
    const { s, lines } = collect();
    s.push(Buffer.from([0xff, 0xfe, 0x0a]));
    const euro = Buffer.from('€\n');
    s.push(euro.subarray(0, 1));
    s.push(euro.subarray(1));
    expect(lines).toEqual([
      ['\ufffd\ufffd', false],
      ['€', false],
    ]);
  });

  it('drops a trailing carriage return and keeps empty lines', () => {
    const { s, lines } = collect();
    s.push(Buffer.from('a\r\n\nb\n'));
    expect(lines.map((l) => l[0])).toEqual(['a', '', 'b']);
  });

  it('splits over-long lines into continued pieces without breaking characters', () => {
    const { s, lines } = collect(10);
    s.push(Buffer.from(`${'é'.repeat(12)}\n`)); // 24 bytes
    expect(lines.map((l) => l[1])).toEqual([true, true, false]);
    expect(lines.map((l) => l[0]).join('')).toBe('é'.repeat(12));
    for (const [t] of lines) expect(Buffer.byteLength(t)).toBeLessThanOrEqual(10);
  });

  it('emits pieces of an unterminated huge line as it grows (bounded memory)', () => {
    const { s, lines } = collect(1024);
    for (let i = 0; i < 100; i++) s.push(Buffer.alloc(1000, 0x61));
    expect(lines.length).toBeGreaterThanOrEqual(97);
    expect(lines.every(([, c]) => c)).toBe(true);
    s.flush();
    expect(lines.at(-1)?.[1]).toBe(false);
    expect(lines.map((l) => l[0]).join('').length).toBe(100_000);
  });

  it('flushes nothing when there is no partial line', () => {
    const { s, lines } = collect();
    s.push(Buffer.from('x\n'));
    s.flush();
    expect(lines).toEqual([['x', false]]);
  });
});

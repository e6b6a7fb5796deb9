import { describe, expect, it } from 'vitest';
import { chartSvg, timeStep } from './chart-svg.js';

/**
 * A small well-formedness check: every tag closes in order, attributes are
 * quoted, and text holds no bare '<' or '&'. Enough for the markup chartSvg
 * writes (no comments, CDATA or processing instructions).
 */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const token = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  for (;;) {
    token.lastIndex = pos;
    m = token.exec(xml);
    if (!m) break;
    pos = token.lastIndex;
    const [, close, name, , selfClose, text] = m;
    if (text !== undefined) {
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(text)) throw new Error(`bare & in ${text}`);
      continue;
    }
    if (close) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
    } else if (!selfClose) stack.push(name!);
  }
  if (pos !== xml.length) throw new Error(`not markup at ${pos}: ${xml.slice(pos, pos + 40)}`);
  if (stack.length) throw new Error(`unclosed: ${stack.join(', ')}`);
}

const ramp = (n: number, f: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => [i / 60, f(i)] as const);

describe('chartSvg', () => {
  const svg = chartSvg({
    title: 'soak <test> & co',
    subtitle: '3 min',
    series: [
      { title: 'RSS', unit: 'MiB', points: ramp(180, (i) => 100 + (i % 7)) },
      { title: 'fds', unit: 'count', points: ramp(180, () => 42) },
      { title: 'empty', unit: 'x', points: [] },
    ],
  });

  it('is well-formed SVG with escaped text', () => {
    assertWellFormed(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('<title>soak &lt;test&gt; &amp; co</title>');
  });

  it('draws one polyline per non-empty series with all its points', () => {
    const lines = [...svg.matchAll(/<polyline [^>]*points="([^"]*)"/g)];
    expect(lines).toHaveLength(2);
    for (const [, pts] of lines) {
      const coords = pts!.split(' ').map((p) => p.split(',').map(Number));
      expect(coords).toHaveLength(180);
      for (const [x, y] of coords) {
        expect(Number.isFinite(x) && Number.isFinite(y)).toBe(true);
      }
    }
    expect(svg).toContain('no data');
  });

  it('labels each panel with its title, min and max, and the time axis in minutes', () => {
    expect(svg).toContain('RSS (MiB)');
    expect(svg).toContain('max 106');
    expect(svg).toContain('min 100');
    expect(svg).toContain('all 42.0');
    expect(svg).toContain('t (min)');
    // 0 to 2.98 minutes: ticks every half minute.
    for (const t of ['0', '0.5', '1', '2.5']) expect(svg).toContain(`>${t}</text>`);
  });
});

describe('timeStep', () => {
  it('keeps ticks to about ten', () => {
    expect(timeStep(0.5)).toBe(0.1);
    expect(timeStep(3)).toBe(0.5);
    expect(timeStep(60)).toBe(10);
    expect(timeStep(24 * 60)).toBe(180);
  });
});

import { describe, expect, it } from 'vitest';
import { parseSoakArgs } from './args.js';

const parse = (...argv: string[]) => parseSoakArgs(argv, '/here', '/repo/bench/results');

describe('parseSoakArgs', () => {
  it('takes fractional minutes and resolves --out against the caller directory', () => {
    expect(parse('--minutes', '0.5', '--out', 'runs', '--seed', '7')).toEqual({
      minutes: 0.5,
      out: '/here/runs',
      sessions: 30,
      seed: 7,
      keepSnapshot: false,
    });
    expect(parse('--keep-snapshot', '--minutes', '1').keepSnapshot).toBe(true);
    expect(parse('--minutes=3', '--sessions=20', '--out=/tmp/x', '--seed=1')).toMatchObject({
      minutes: 3,
      sessions: 20,
      out: '/tmp/x',
    });
    expect(parse('--minutes', '1').out).toBe('/repo/bench/results');
  });

  it('refuses a missing or bad --minutes and unknown arguments', () => {
    expect(() => parse()).toThrow(/--minutes is required/);
    expect(() => parse('--minutes', 'soon')).toThrow(/positive number, not soon/);
    expect(() => parse('--minutes', '0')).toThrow(/positive number/);
    expect(() => parse('--minutes')).toThrow(/needs a value/);
    expect(() => parse('--minutes', '1', '--fast')).toThrow(/unknown argument --fast/);
  });
});

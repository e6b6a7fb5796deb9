import { describe, expect, it } from 'vitest';
import { decisionFor } from './permission-prompt.js';

describe('decisionFor', () => {
  it('takes a key, its word or the decision in either spelling, only among those offered', () => {
    const all = ['allow_once', 'allow_session', 'deny'] as const;
    expect(
      ['o', 'once', ' O ', 'allow_once', 'allow-once'].map((a) => decisionFor(a, all)),
    ).toEqual(Array(5).fill('allow_once'));
    expect(decisionFor('s', all)).toBe('allow_session');
    expect(decisionFor('deny', all)).toBe('deny');
    expect(decisionFor('s', ['allow_once', 'deny'])).toBeUndefined();
    expect(decisionFor('', all)).toBeUndefined();
    expect(decisionFor('yes', all)).toBeUndefined();
  });
});

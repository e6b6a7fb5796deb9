import { describe, expect, it } from 'vitest';
import { tokenCounts, usageSince } from './token-usage.js';

describe('token usage', () => {
  it('snake-cases the numeric fields of a captured breakdown and takes a turn as a difference', () => {
    // thread/tokenUsage/updated totals before and after the captured tool turn.
    const before = tokenCounts({ totalTokens: 16, inputTokens: 11, outputTokens: 5, note: 'x' });
    const after = tokenCounts({
      totalTokens: 32,
      inputTokens: 22,
      cachedInputTokens: 0,
      outputTokens: 10,
    });
    expect(before).toEqual({ total_tokens: 16, input_tokens: 11, output_tokens: 5 });
    expect(usageSince(after, before)).toEqual({
      total_tokens: 16,
      input_tokens: 11,
      cached_input_tokens: 0,
      output_tokens: 5,
    });
    expect(tokenCounts(null)).toEqual({});
  });
});

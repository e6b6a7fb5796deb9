/** Token counts in the bridge's snake_case form: `input_tokens`, `output_tokens`, … */
export type TokenCounts = Record<string, number>;

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The numeric fields of a codex token breakdown (`totalTokens`, `inputTokens`, …), snake_cased. */
export function tokenCounts(breakdown: unknown): TokenCounts {
  const out: TokenCounts = {};
  if (breakdown && typeof breakdown === 'object') {
    for (const [k, v] of Object.entries(breakdown)) {
      if (typeof v === 'number' && Number.isFinite(v)) out[snake(k)] = v;
    }
  }
  return out;
}

/**
 * One turn's usage: codex reports only the thread's running total (and the
 * last model call), so the turn's share is the total now minus the total
 * when the turn began.
 */
export function usageSince(now: TokenCounts, before: TokenCounts): TokenCounts {
  const out: TokenCounts = {};
  for (const [k, v] of Object.entries(now)) out[k] = v - (before[k] ?? 0);
  return out;
}

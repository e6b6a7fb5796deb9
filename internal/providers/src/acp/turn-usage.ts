import { isRecord } from '../contract/json-value.js';

/**
 * Usage and cost of one turn, gathered from wherever the agent put them:
 * ACP v1 has no standard field, so opencode and claude-agent-acp answer the
 * prompt with `usage: {inputTokens, …}`, gemini with
 * `_meta.quota.token_count: {input_tokens, …}`, and `usage_update`
 * notifications carry the context window (`used`/`size`) and the cumulative
 * session cost.
 */
export class TurnUsage {
  private context: { used: number; size: number } | undefined;
  private cost: { amount: number; currency: string } | undefined;
  /** Cumulative session cost when the turn began, to report this turn's share. */
  private costAtStart = 0;

  /** A new turn: context and cost carry over as the baseline. */
  begin(): void {
    this.costAtStart = this.cost?.amount ?? 0;
    this.context = undefined;
  }

  /** Records a `usage_update`. */
  update(u: Record<string, unknown>): void {
    if (typeof u.used === 'number' && typeof u.size === 'number') {
      this.context = { used: u.used, size: u.size };
    }
    if (
      isRecord(u.cost) &&
      typeof u.cost.amount === 'number' &&
      typeof u.cost.currency === 'string'
    ) {
      this.cost = { amount: u.cost.amount, currency: u.cost.currency };
    }
  }

  /** The TURN_COMPLETED fields for a prompt response (or undefined after an error). */
  summary(result: unknown): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const r = isRecord(result) ? result : {};
    const meta = isRecord(r._meta) ? r._meta : {};
    const quota = isRecord(meta.quota) ? meta.quota : {};
    const usage = tokenCounts(r.usage) ?? tokenCounts(quota.token_count);
    if (usage) out.usage = usage;
    if (Array.isArray(quota.model_usage)) {
      const byModel = quota.model_usage
        .filter((m): m is Record<string, unknown> => isRecord(m) && typeof m.model === 'string')
        .map((m) => ({ model: m.model, usage: tokenCounts(m.token_count) ?? {} }));
      if (byModel.length > 0) out.model_usage = byModel;
    }
    if (this.context)
      out.context = { used_tokens: this.context.used, size_tokens: this.context.size };
    if (this.cost) {
      out.session_cost = { ...this.cost };
      if (this.cost.currency === 'USD') {
        out.cost_usd = Math.max(0, this.cost.amount - this.costAtStart);
      }
    }
    return out;
  }
}

/** Numeric token counts with snake_case keys ("inputTokens" → "input_tokens"); undefined when none. */
function tokenCounts(v: unknown): Record<string, number> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) {
    if (typeof n !== 'number' || !Number.isFinite(n)) continue;
    out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = n;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

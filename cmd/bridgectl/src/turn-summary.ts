// Shared by the terminal rendering and the web console's page (which bundles
// it): plain code, no imports, so that it runs in a browser as well.

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** What a TURN_COMPLETED event's data says of its turn: tokens, cost, time, how it ended. */
export function turnSummaryParts(data: Record<string, unknown>): string[] {
  const usage = (data.usage ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  const input = num(usage.input_tokens);
  const output = num(usage.output_tokens);
  if (input !== undefined || output !== undefined) {
    parts.push(`${input ?? 0} in / ${output ?? 0} out tokens`);
  }
  const cost = num(data.cost_usd) ?? num(data.total_cost_usd);
  if (cost !== undefined) parts.push(`$${cost.toFixed(4)}`);
  const ms = num(data.duration_ms);
  if (ms !== undefined) parts.push(`${(ms / 1000).toFixed(1)}s`);
  if (data.interrupted === true)
    parts.push(
      data.reason === 'daemon_restarted' ? 'interrupted by a daemon restart' : 'interrupted',
    );
  return parts;
}

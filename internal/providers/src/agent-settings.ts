/** What configuration says about how one provider's agents run, besides which CLI runs them. */
export interface AgentSettings {
  /** Extra environment for the child, over the inherited allowlist and the adapter's defaults. */
  env: Readonly<Record<string, string>>;
  /** A turn running longer than this ends with AGENT_ERROR, an interrupt, and a kill if need be. */
  turnTimeoutMs?: number;
  /** Also keep every raw protocol line as a STDOUT event. */
  emitRaw?: boolean;
  /** agent_opts clients may set, narrowed from the adapter's safe defaults. */
  allowedOpts?: Record<string, string[]> | undefined;
  /** Options applied when the client sets none; the only place for dangerous modes. */
  defaultOpts?: Record<string, string>;
  /** Give each session its own empty HOME, removed afterwards. */
  isolateHome?: boolean;
  /** How long an auth answer (and a failed `--version`) holds before a background re-check. */
  healthTtlMs?: number;
  /** The budget of one background probe run; its processes are killed at it. */
  probeTimeoutMs?: number;
}

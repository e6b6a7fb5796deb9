import type { ProbeState } from '@agent-bridge/bridgeclient';

/**
 * How fresh a provider's health is, in words for an operator: nothing when
 * current, else what the daemon's background probes are doing or missed.
 */
export function probeFreshness(p: {
  probeState: ProbeState;
  confirmedAt?: Date | undefined;
  probeDetail: string;
}): string {
  if (p.probeState === 'PENDING') return ` (probing: ${p.probeDetail || 'first probe under way'})`;
  if (p.probeState === 'STALE') {
    const since = p.confirmedAt ? `, last confirmed ${p.confirmedAt.toISOString()}` : '';
    return ` (stale${since}: ${p.probeDetail})`;
  }
  return '';
}

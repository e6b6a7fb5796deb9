import type { AuthState } from '../contract/provider.js';
import type { ProbeOutput } from './binary-probe.js';

/** Auth as a free probe found it. */
export interface AuthProbe {
  state: AuthState;
  detail: string;
}

/**
 * The budget of one background probe run unless configured (`probe_timeout`).
 * Generous: nobody waits for it, and a CLI that answers `--version` in 8 s
 * on a loaded host is still a working CLI.
 */
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;

/** How long an auth answer holds unless configured (`health_ttl`). */
export const DEFAULT_HEALTH_TTL_MS = 60_000;

/** An auth check that gave no usable answer: unknown, with the first line it printed. */
export function authCheckFailed(
  command: string,
  r: Pick<ProbeOutput, 'output'> & { timedOut?: boolean },
): AuthProbe {
  if (r.timedOut) return { state: 'unknown', detail: `${command}: probe timed out` };
  const first = (r.output.split('\n')[0] ?? '').trim().slice(0, 200);
  return { state: 'unknown', detail: `${command} failed: ${first || 'no output'}` };
}

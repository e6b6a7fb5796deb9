import { probeOutput } from './binary-probe.js';
import type { AuthState, ProviderStatus } from './provider.js';

/** Auth as a free probe found it. */
export interface AuthProbe {
  state: AuthState;
  detail: string;
}

/** An auth check that gave no usable answer: unknown, with the first line it printed. */
export function authCheckFailed(command: string, output: string): AuthProbe {
  const first = (output.split('\n')[0] ?? '').trim().slice(0, 200);
  return { state: 'unknown', detail: `${command} failed: ${first || 'no output (timed out?)'}` };
}

export interface HealthProbe {
  /** The binary's absolute path; rejects with the reason it cannot run. */
  binary(): Promise<string>;
  /** The environment the probes run with (the sessions' own). */
  env: Record<string, string>;
  /** Whether a failing `--version` makes the provider unavailable (a CLI we drive) or not (any command). */
  versionRequired: boolean;
  parseVersion(output: string): string;
  /** A free (no model call) authentication check. */
  probeAuth?(binaryPath: string, env: Record<string, string>): Promise<AuthProbe>;
}

const VERSION_TIMEOUT_MS = 10_000;

/**
 * A provider's health without a model call: the binary resolves, `--version`
 * answers within its time limit, and the CLI's own auth check, run side by
 * side. A failing auth check is reported as unknown, never as unavailable.
 */
export async function probeHealth(p: HealthProbe): Promise<ProviderStatus> {
  const checkedAt = new Date();
  const status: ProviderStatus = {
    available: false,
    error: '',
    binaryPath: '',
    version: '',
    authState: 'unknown',
    authDetail: '',
    checkedAt,
  };
  try {
    status.binaryPath = await p.binary();
  } catch (err) {
    return { ...status, error: (err as Error).message };
  }
  const [v, auth] = await Promise.all([
    probeOutput(status.binaryPath, ['--version'], { env: p.env, timeoutMs: VERSION_TIMEOUT_MS }),
    p.probeAuth
      ? p
          .probeAuth(status.binaryPath, p.env)
          .catch((err: Error): AuthProbe => ({ state: 'unknown', detail: err.message }))
      : undefined,
  ]);
  if (auth) Object.assign(status, { authState: auth.state, authDetail: auth.detail });
  if (!v.ok && p.versionRequired) {
    const first = v.output.split('\n')[0] ?? '';
    return { ...status, error: `"${status.binaryPath} --version" failed: ${first}`.trim() };
  }
  return { ...status, available: true, version: v.ok ? p.parseVersion(v.output) : '' };
}

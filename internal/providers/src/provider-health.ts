import { type ProbeOutput, probeOutput } from './binary-probe.js';
import type { AuthState, ProviderStatus } from './provider.js';

/** Auth as a free probe found it. */
export interface AuthProbe {
  state: AuthState;
  detail: string;
}

/** How long a whole health probe may take unless configured (`probe_timeout`). */
export const DEFAULT_PROBE_TIMEOUT_MS = 5000;

/** What a probe reports for a step the deadline cut short. */
const timedOutText = (ms: number) => `probe timed out after ${ms}ms`;

/** An auth check that gave no usable answer: unknown, with the first line it printed. */
export function authCheckFailed(
  command: string,
  r: Pick<ProbeOutput, 'output'> & { timedOut?: boolean },
): AuthProbe {
  if (r.timedOut) return { state: 'unknown', detail: `${command}: probe timed out` };
  const first = (r.output.split('\n')[0] ?? '').trim().slice(0, 200);
  return { state: 'unknown', detail: `${command} failed: ${first || 'no output'}` };
}

export interface HealthProbe {
  /** The binary's absolute path; rejects with the reason it cannot run. */
  binary(): Promise<string>;
  /** The environment the probes run with (the sessions' own). */
  env: Record<string, string>;
  /** Whether a failing `--version` makes the provider unavailable (a CLI we drive) or not (any command). */
  versionRequired: boolean;
  parseVersion(output: string): string;
  /**
   * A free (no model call) authentication check. A process it runs must
   * be a probeOutput with `deadline`, so the deadline ends it.
   */
  probeAuth?(
    binaryPath: string,
    env: Record<string, string>,
    deadline: AbortSignal,
  ): Promise<AuthProbe>;
  /** The bound on the whole probe, binary resolution included. */
  timeoutMs: number;
}

/** A health probe's status, and whether it timed out (a status not to be cached). */
export interface HealthResult {
  status: ProviderStatus;
  timedOut: boolean;
}

/**
 * A provider's health without a model call: the binary resolves, `--version`
 * answers, and the CLI's own auth check, run side by side, all within one
 * deadline (`timeoutMs`). At the deadline every probe process group is
 * killed and the answer comes at once, whatever the binary does: a step
 * not finished by then reports "probe timed out". A failing auth check is
 * reported as unknown, never as unavailable.
 */
export async function probeHealth(p: HealthProbe): Promise<HealthResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), p.timeoutMs);
  try {
    return await probeUntil(p, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function probeUntil(p: HealthProbe, deadline: AbortSignal): Promise<HealthResult> {
  const timedOut = timedOutText(p.timeoutMs);
  const status: ProviderStatus = {
    available: false,
    error: '',
    binaryPath: '',
    version: '',
    authState: 'unknown',
    authDetail: '',
    checkedAt: new Date(),
  };
  // Resolving touches the file system, which can hang too (a dead mount).
  const binary = await untilDeadline(
    p.binary().then(
      (path) => ({ path }),
      (err: Error) => ({ error: err.message }),
    ),
    deadline,
  );
  if (binary === TIMED_OUT) {
    return { status: { ...status, error: `${timedOut} resolving the binary` }, timedOut: true };
  }
  if ('error' in binary) return { status: { ...status, error: binary.error }, timedOut: false };
  status.binaryPath = binary.path;

  const [v, auth] = await Promise.all([
    untilDeadline(probeOutput(binary.path, ['--version'], { env: p.env, deadline }), deadline),
    p.probeAuth
      ? untilDeadline(
          p
            .probeAuth(binary.path, p.env, deadline)
            .catch((err: Error): AuthProbe => ({ state: 'unknown', detail: err.message })),
          deadline,
        )
      : undefined,
  ]);
  const versionTimedOut = v === TIMED_OUT || v.timedOut;
  const authTimedOut = auth === TIMED_OUT;
  if (auth === TIMED_OUT) Object.assign(status, { authState: 'unknown', authDetail: timedOut });
  else if (auth) Object.assign(status, { authState: auth.state, authDetail: auth.detail });
  if (versionTimedOut || !v.ok) {
    if (p.versionRequired) {
      const why = versionTimedOut ? timedOut : `failed: ${v.output.split('\n')[0] ?? ''}`.trim();
      return {
        status: { ...status, error: `"${binary.path} --version" ${why}` },
        timedOut: versionTimedOut || authTimedOut,
      };
    }
    // Any command may run here: one that never answers --version is still
    // usable, and that is an answer worth keeping.
    return { status: { ...status, available: true }, timedOut: authTimedOut };
  }
  return {
    status: { ...status, available: true, version: p.parseVersion(v.output) },
    timedOut: authTimedOut,
  };
}

const TIMED_OUT = Symbol('timed out');

/** Settles like `p`, or with TIMED_OUT as soon as `deadline` aborts, whichever is first. */
function untilDeadline<T>(p: Promise<T>, deadline: AbortSignal): Promise<T | typeof TIMED_OUT> {
  if (deadline.aborted) return Promise.resolve(TIMED_OUT);
  return new Promise((resolve, reject) => {
    const onDeadline = () => resolve(TIMED_OUT);
    deadline.addEventListener('abort', onDeadline, { once: true });
    p.then(
      (value) => {
        deadline.removeEventListener('abort', onDeadline);
        resolve(value);
      },
      (err: unknown) => {
        deadline.removeEventListener('abort', onDeadline);
        reject(err);
      },
    );
  });
}

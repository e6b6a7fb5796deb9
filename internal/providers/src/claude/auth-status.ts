import { type ProbeOutput, probeOutput } from '../health/binary-probe.js';
import { type AuthProbe, authCheckFailed } from '../health/provider-health.js';

/**
 * Reads `claude auth status`: JSON `{"loggedIn":…,"authMethod":…}`, rc 0
 * when logged in, 1 when not. It does not validate a key, so "authenticated"
 * means "credentials configured".
 */
export function interpretAuthStatus(
  r: Omit<ProbeOutput, 'timedOut'> & { timedOut?: boolean },
): AuthProbe {
  if (r.timedOut) return authCheckFailed('claude auth status', r);
  const json = /\{[\s\S]*\}/.exec(r.output)?.[0];
  let parsed: { loggedIn?: unknown; authMethod?: unknown } | undefined;
  try {
    parsed = json ? JSON.parse(json) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed.loggedIn === 'boolean') {
    const method = typeof parsed.authMethod === 'string' ? parsed.authMethod : 'unknown';
    return parsed.loggedIn
      ? { state: 'authenticated', detail: `credentials configured (${method}); not validated` }
      : { state: 'unauthenticated', detail: 'not logged in (claude auth status)' };
  }
  return authCheckFailed('claude auth status', r);
}

export async function probeAuthStatus(
  binaryPath: string,
  env: Record<string, string>,
  deadline: AbortSignal,
): Promise<AuthProbe> {
  return interpretAuthStatus(await probeOutput(binaryPath, ['auth', 'status'], { env, deadline }));
}

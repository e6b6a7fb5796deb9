import { type ProbeOutput, probeOutput } from '../health/binary-probe.js';
import { type AuthProbe, authCheckFailed } from '../health/provider-health.js';

const ENV_KEYS_NOTE =
  'an API key given through env (OPENAI_API_KEY, CODEX_API_KEY) or a custom model provider is not reflected there';

/**
 * Reads `codex login status`: rc 0 is logged in ("Logged in using ChatGPT",
 * "Logged in using an API key - sk-…"), rc 1 with "Not logged in" is not.
 * Only the login method is kept: the masked key is nobody's business.
 */
export function interpretLoginStatus(
  r: Omit<ProbeOutput, 'timedOut'> & { timedOut?: boolean },
): AuthProbe {
  if (r.timedOut) return authCheckFailed('codex login status', r);
  const first = (r.output.split('\n')[0] ?? '').trim();
  if (r.ok) {
    const method = /^Logged in using (.+?)(?:\s+-\s+.*)?$/i.exec(first)?.[1];
    return {
      state: 'authenticated',
      detail: method ? `logged in using ${method}` : 'logged in (codex login status)',
    };
  }
  if (/not logged in/i.test(r.output)) {
    return {
      state: 'unauthenticated',
      detail: `not logged in (codex login status); ${ENV_KEYS_NOTE}`,
    };
  }
  return authCheckFailed('codex login status', r);
}

/** The free auth probe of the codex adapter. */
export async function probeLoginStatus(
  binaryPath: string,
  env: Record<string, string>,
  opts: { isolateHome: boolean; deadline: AbortSignal },
): Promise<AuthProbe> {
  if (opts.isolateHome) {
    // The probe would read the daemon's own login, which isolated sessions never see.
    return {
      state: 'unknown',
      detail: `isolate_home is on: sessions start with an empty CODEX_HOME and no stored login, so credentials must come from env, which codex login status cannot check`,
    };
  }
  const r = await probeOutput(binaryPath, ['login', 'status'], { env, deadline: opts.deadline });
  return interpretLoginStatus(r);
}

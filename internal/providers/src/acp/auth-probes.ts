import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { probeOutput } from '../health/binary-probe.js';
import { type AuthProbe, authCheckFailed } from '../health/provider-health.js';

/** Variables that give gemini credentials (the key itself is never validated: that costs a call). */
const GEMINI_AUTH_ENV = [
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENAI_USE_VERTEXAI',
  'GOOGLE_GENAI_USE_GCA',
] as const;

/** Provider keys opencode picks up from its environment (names only are ever reported). */
const OPENCODE_PROVIDER_ENV = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'OPENROUTER_API_KEY',
  'GROQ_API_KEY',
  'XAI_API_KEY',
  'DEEPSEEK_API_KEY',
  'MISTRAL_API_KEY',
  'GITHUB_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AZURE_API_KEY',
] as const;

/**
 * gemini has no status command. Its credentials come from the environment
 * or from the auth type chosen in `~/.gemini/settings.json`; without either
 * it refuses to work ("Please set an Auth method…", exit 41).
 */
export async function probeGeminiAuth(
  env: Record<string, string>,
  opts: { storedLoginsVisible: boolean },
): Promise<AuthProbe> {
  const set = GEMINI_AUTH_ENV.filter((k) => env[k]);
  if (set.length > 0) {
    return { state: 'authenticated', detail: `${set.join(', ')} set (not validated)` };
  }
  const home = env.HOME;
  if (!opts.storedLoginsVisible || !home) {
    return {
      state: 'unauthenticated',
      detail: `none of ${GEMINI_AUTH_ENV.join(', ')} is set${opts.storedLoginsVisible ? '' : ' (isolate_home hides stored settings)'}`,
    };
  }
  const settingsPath = join(home, '.gemini', 'settings.json');
  const selected = await selectedAuthType(settingsPath);
  if (selected === undefined) {
    return {
      state: 'unauthenticated',
      detail: `none of ${GEMINI_AUTH_ENV.join(', ')} is set and ${settingsPath} selects no auth type`,
    };
  }
  if (selected === 'oauth-personal' && (await exists(join(home, '.gemini', 'oauth_creds.json')))) {
    return { state: 'authenticated', detail: 'signed in with Google (cached credentials)' };
  }
  // An API key type without the variable may still be served by ~/.gemini/.env; don't guess.
  return { state: 'unknown', detail: `settings select auth type "${selected}"; not verified` };
}

async function selectedAuthType(path: string): Promise<string | undefined> {
  try {
    const s = JSON.parse(await readFile(path, 'utf8')) as {
      security?: { auth?: { selectedType?: unknown } };
      selectedAuthType?: unknown;
    };
    const t = s.security?.auth?.selectedType ?? s.selectedAuthType;
    return typeof t === 'string' && t !== '' ? t : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `opencode providers list` prints the stored credentials ("0 credentials")
 * and the provider keys it found in the environment. Keys can also come from
 * `OPENCODE_CONFIG_CONTENT` or a config file, which the probe cannot check
 * without a model call: those make the state "unknown", not "unauthenticated".
 */
export async function probeOpencodeAuth(
  binaryPath: string,
  env: Record<string, string>,
  opts: { storedLoginsVisible: boolean; deadline: AbortSignal },
): Promise<AuthProbe> {
  const keys = OPENCODE_PROVIDER_ENV.filter((k) => env[k]);
  if (opts.storedLoginsVisible) {
    const r = await probeOutput(binaryPath, ['providers', 'list'], {
      env,
      deadline: opts.deadline,
    });
    const creds = /(\d+)\s+credentials?\b/i.exec(r.output);
    if (!r.ok || !creds) {
      return authCheckFailed('"opencode providers list"', r);
    }
    const count = Number(creds[1]);
    if (count > 0) {
      return {
        state: 'authenticated',
        detail: `${count} stored credential${count > 1 ? 's' : ''}`,
      };
    }
    const envVars = /(\d+)\s+environment variables?\b/i.exec(r.output);
    if (envVars && Number(envVars[1]) > 0 && keys.length === 0) {
      return { state: 'authenticated', detail: `${envVars[1]} provider key(s) in the environment` };
    }
  }
  if (keys.length > 0) {
    return {
      state: 'authenticated',
      detail: `provider key in the environment: ${keys.join(', ')}`,
    };
  }
  if (env.OPENCODE_CONFIG_CONTENT) {
    return {
      state: 'unknown',
      detail: 'no stored credentials; OPENCODE_CONFIG_CONTENT may carry them',
    };
  }
  if (opts.storedLoginsVisible) {
    const config = await firstExisting(opencodeConfigFiles(env));
    if (config) {
      return { state: 'unknown', detail: `no stored credentials; ${config} may carry them` };
    }
  }
  return {
    state: 'unauthenticated',
    detail: opts.storedLoginsVisible
      ? 'opencode providers list: 0 credentials, and no provider key in the environment'
      : 'no provider key in the environment (isolate_home hides stored credentials)',
  };
}

function opencodeConfigFiles(env: Record<string, string>): string[] {
  const base = env.XDG_CONFIG_HOME || (env.HOME ? join(env.HOME, '.config') : '');
  const files = base
    ? ['opencode.json', 'opencode.jsonc', 'config.json'].map((f) => join(base, 'opencode', f))
    : [];
  if (env.OPENCODE_CONFIG) files.unshift(env.OPENCODE_CONFIG);
  return files;
}

async function firstExisting(paths: string[]): Promise<string | undefined> {
  for (const p of paths) if (await exists(p)) return p;
  return undefined;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BridgeClient } from '@agent-bridge/bridgeclient';
import {
  CliError,
  type CliIo,
  type CommandContext,
  type OptionSpec,
  type OptionValues,
  type Profile,
  type ProfileKey,
  profilesPath,
  readProfiles,
} from '@agent-bridge/cli';
import type { CtlIo } from './ctl-io.js';
import { EXIT } from './exit-codes.js';

interface Setting {
  key: ProfileKey;
  flag: string;
  env: string;
  /** What it is, for help and messages. */
  what: string;
  value: string;
  path?: boolean;
}

const SETTINGS: readonly Setting[] = [
  {
    key: 'address',
    flag: 'address',
    env: 'BRIDGECTL_ADDRESS',
    what: 'the daemon',
    value: 'HOST:PORT',
  },
  {
    key: 'server_name',
    flag: 'server-name',
    env: 'BRIDGECTL_SERVER_NAME',
    what: "the name the daemon's certificate carries, when not the address's host",
    value: 'NAME',
  },
  { key: 'ca', flag: 'ca', env: 'BRIDGECTL_CA', what: 'the CA bundle', value: 'FILE', path: true },
  {
    key: 'cert',
    flag: 'cert',
    env: 'BRIDGECTL_CERT',
    what: 'the client certificate',
    value: 'FILE',
    path: true,
  },
  {
    key: 'key',
    flag: 'key',
    env: 'BRIDGECTL_KEY',
    what: 'the client key',
    value: 'FILE',
    path: true,
  },
  {
    key: 'jwt_key',
    flag: 'jwt-key',
    env: 'BRIDGECTL_JWT_KEY',
    what: 'the Ed25519 JWT signing key',
    value: 'FILE',
    path: true,
  },
  { key: 'issuer', flag: 'issuer', env: 'BRIDGECTL_ISSUER', what: 'the JWT issuer', value: 'NAME' },
  {
    key: 'kid',
    flag: 'kid',
    env: 'BRIDGECTL_KID',
    what: "the JWT key id (default: the key's thumbprint)",
    value: 'ID',
  },
  {
    key: 'subject',
    flag: 'subject',
    env: 'BRIDGECTL_SUBJECT',
    what: 'the JWT subject (default: bridgectl)',
    value: 'NAME',
  },
  {
    key: 'project',
    flag: 'project',
    env: 'BRIDGECTL_PROJECT',
    what: 'the project id',
    value: 'ID',
  },
];

const REQUIRED: readonly ProfileKey[] = [
  'address',
  'ca',
  'cert',
  'key',
  'jwt_key',
  'issuer',
  'project',
];

export const CONNECTION_OPTIONS: Record<string, OptionSpec> = {
  profile: {
    type: 'string',
    value: 'NAME',
    description: 'the profile to use (else $BRIDGECTL_PROFILE, else "dev")',
  },
  ...Object.fromEntries(
    SETTINGS.map((s) => [
      s.flag,
      { type: 'string', value: s.value, description: `${s.what} ($${s.env})` },
    ]),
  ),
};

type Settings = Partial<Record<ProfileKey, string>>;

/**
 * The connection settings of this invocation: each from its flag, else its
 * BRIDGECTL_* variable, else the profile. Paths of flags and variables are
 * relative to the working directory, those of a profile to its file.
 */
export async function resolveSettings(values: OptionValues, io: CliIo): Promise<Settings> {
  const { env } = io;
  const named = (values.profile as string | undefined) ?? env.BRIDGECTL_PROFILE;
  const name = named ?? 'dev';
  const file = profilesPath(env);
  let profile: Profile | undefined;
  try {
    profile = (await readProfiles(file))?.[name];
  } catch (err) {
    const unreadable = (err as { unreadable?: boolean }).unreadable === true;
    throw new CliError(unreadable ? EXIT.file : EXIT.usage, (err as Error).message);
  }
  if (named !== undefined && profile === undefined) {
    throw new CliError(EXIT.usage, `no profile "${name}" in ${file}`);
  }
  const settings: Settings = {};
  for (const s of SETTINGS) {
    const given = (values[s.flag] as string | undefined) ?? (env[s.env] || undefined);
    const value =
      given !== undefined && s.path ? resolve(io.cwd, given) : (given ?? profile?.[s.key]);
    if (value !== undefined) settings[s.key] = value;
  }
  const missing = REQUIRED.filter((k) => settings[k] === undefined);
  if (missing.length > 0) {
    const flags = missing.map((k) => `--${SETTINGS.find((s) => s.key === k)?.flag}`).join(', ');
    throw new CliError(
      EXIT.usage,
      profile === undefined
        ? `no connection settings for ${flags}: give them as flags or BRIDGECTL_* variables, or run \`pnpm dev\`, which writes the "dev" profile to ${file}`
        : `profile "${name}" (${file}) lacks ${flags}; give them as flags or BRIDGECTL_* variables`,
    );
  }
  return settings;
}

function readPem(settings: Settings, key: ProfileKey): string {
  const s = SETTINGS.find((x) => x.key === key) as Setting;
  const file = settings[key] as string;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(
      EXIT.file,
      `cannot read ${s.what} (--${s.flag}) ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** A client for the settings; the files are read here so a bad one is named with its flag. */
export function connect(settings: Settings): BridgeClient {
  const [ca, cert, key, privateKey] = (['ca', 'cert', 'key', 'jwt_key'] as const).map((k) =>
    readPem(settings, k),
  ) as [string, string, string, string];
  try {
    return new BridgeClient({
      target: settings.address as string,
      mtls: {
        ca,
        cert,
        key,
        ...(settings.server_name ? { serverName: settings.server_name } : {}),
      },
      jwt: {
        privateKey,
        issuer: settings.issuer as string,
        subject: settings.subject ?? 'bridgectl',
        projectId: settings.project as string,
        ...(settings.kid ? { keyId: settings.kid } : {}),
      },
      // A person waits at the other end: fail in seconds, not after the SDK's minute of retries.
      retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
      timeouts: { callMs: 15_000, reconnectMs: 30_000 },
    });
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const usage = err.message.startsWith('target') || err.message.startsWith('jwt.projectId');
    throw new CliError(usage ? EXIT.usage : EXIT.file, `bad connection settings: ${err.message}`);
  }
}

/** Runs `fn` with a client for the command's settings, closing it afterwards. */
export async function withClient<T>(
  ctx: CommandContext<CtlIo>,
  fn: (client: BridgeClient) => Promise<T>,
): Promise<T> {
  const client = connect(await resolveSettings(ctx.values, ctx.io));
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

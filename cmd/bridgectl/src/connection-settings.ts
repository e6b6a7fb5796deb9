import { resolve } from 'node:path';
import {
  CliError,
  type CliIo,
  type OptionSpec,
  type OptionValues,
  type Profile,
  ProfileFileError,
  type ProfileKey,
  profilesPath,
  readProfiles,
} from '@agent-bridge/cli';
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

/** The connection settings of one invocation, and where each came from. */
export interface Settings {
  values: Partial<Record<ProfileKey, string>>;
  /**
   * Where each value came from, as messages name it: `--cert`,
   * `$BRIDGECTL_CERT`, or `cert of profile "dev" in /…/profiles.yaml`.
   */
  from: Partial<Record<ProfileKey, string>>;
}

const settingOf = (key: ProfileKey): Setting => SETTINGS.find((s) => s.key === key) as Setting;

/** What a setting is, for messages: "the client certificate". */
export const whatIs = (key: ProfileKey): string => settingOf(key).what;

/** The flag of a setting: "--cert". */
export const flagOf = (key: ProfileKey): string => `--${settingOf(key).flag}`;

/**
 * The connection settings of this invocation: each from its flag, else its
 * BRIDGECTL_* variable, else the profile. Paths of flags and variables are
 * relative to the working directory, those of a profile to its file. An
 * empty value counts as none.
 */
export async function resolveSettings(
  values: OptionValues,
  io: CliIo,
  /** Settings this command can do without (`ui` with a fleet has no one address). */
  optional: readonly ProfileKey[] = [],
): Promise<Settings> {
  const { env } = io;
  const named = (values.profile as string | undefined) ?? (env.BRIDGECTL_PROFILE || undefined);
  const name = named ?? 'dev';
  const file = profilesPath(env);
  let profile: Profile | undefined;
  try {
    profile = (await readProfiles(file))?.[name];
  } catch (err) {
    if (!(err instanceof ProfileFileError)) throw err;
    throw new CliError(err.kind === 'unknown_key' ? EXIT.usage : EXIT.file, err.message);
  }
  if (named !== undefined && profile === undefined) {
    throw new CliError(EXIT.usage, `no profile "${name}" in ${file}`);
  }
  const settings: Settings = { values: {}, from: {} };
  for (const s of SETTINGS) {
    const flag = values[s.flag] as string | undefined;
    const variable = env[s.env];
    const [given, from] = flag
      ? [flag, `--${s.flag}`]
      : variable
        ? [variable, `$${s.env}`]
        : [profile?.[s.key], `${s.key} of profile "${name}" in ${file}`];
    if (!given) continue;
    // A profile's paths are already absolute: readProfiles resolves them against its file.
    settings.values[s.key] = s.path ? resolve(io.cwd, given) : given;
    settings.from[s.key] = from;
  }
  const missing = REQUIRED.filter((k) => settings.values[k] === undefined && !optional.includes(k));
  if (missing.length > 0) {
    const flags = missing.map(flagOf).join(', ');
    throw new CliError(
      EXIT.usage,
      profile === undefined
        ? `no connection settings for ${flags}: give them as flags or BRIDGECTL_* variables, or run \`npm run dev\` in the repository, which writes the "dev" profile to ${file}`
        : `profile "${name}" (${file}) lacks ${missing.join(', ')}: add them to it, or give ${flags} as flags or BRIDGECTL_* variables`,
    );
  }
  return settings;
}

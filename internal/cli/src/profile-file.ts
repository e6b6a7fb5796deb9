import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Document, isMap, parseDocument } from 'yaml';

/**
 * The bridgectl profile file: named connection settings. It lives here, not
 * in bridgectl, because `bridge dev` writes its `dev` profile too.
 */

/** What a profile may set; paths relative to the file's directory. */
export const PROFILE_KEYS = [
  'address',
  'server_name',
  'ca',
  'cert',
  'key',
  'jwt_key',
  'issuer',
  'kid',
  'subject',
  'project',
] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];
export type Profile = Partial<Record<ProfileKey, string>>;

/** Keys whose values are file paths. */
const PROFILE_PATH_KEYS: readonly ProfileKey[] = ['ca', 'cert', 'key', 'jwt_key'];

/** Marks a profile `bridge dev` wrote: the hash of its settings, so an edit shows. */
const GENERATED = 'generated';

/** A profile file that cannot be read or is not a profile file; the message names it. */
export class ProfileFileError extends Error {
  override readonly name = 'ProfileFileError';
  constructor(
    message: string,
    /**
     * `unreadable`: the file could not be read at all; `invalid`: it is not
     * a profile file (not YAML, not a map of profiles); `unknown_key`: a
     * profile sets a key no profile has (a typo, as a bad flag is).
     */
    readonly kind: 'unreadable' | 'invalid' | 'unknown_key' = 'invalid',
  ) {
    super(message);
  }
}

/**
 * Where the profiles are: $BRIDGECTL_PROFILES, else
 * $XDG_CONFIG_HOME/agent-bridge/profiles.yaml, else
 * ~/.config/agent-bridge/profiles.yaml.
 */
export function profilesPath(env: Record<string, string | undefined>): string {
  if (env.BRIDGECTL_PROFILES) return resolve(env.BRIDGECTL_PROFILES);
  const config = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(config, 'agent-bridge', 'profiles.yaml');
}

/** The profiles of `file` by name, paths made absolute; undefined when there is no file. */
export async function readProfiles(file: string): Promise<Record<string, Profile> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ProfileFileError(`cannot read the profile file ${file} (${code})`, 'unreadable');
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ProfileFileError(`${file}: not YAML: ${doc.errors[0]?.message.split('\n')[0]}`);
  }
  const root = (doc.toJS() ?? {}) as { profiles?: unknown };
  const entries = root.profiles ?? {};
  if (typeof entries !== 'object' || Array.isArray(entries)) {
    throw new ProfileFileError(`${file}: "profiles" must be a map of profile names`);
  }
  const out: Record<string, Profile> = {};
  for (const [name, value] of Object.entries(entries as Record<string, unknown>)) {
    out[name] = checkProfile(file, name, value);
  }
  return out;
}

function checkProfile(file: string, name: string, value: unknown): Profile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProfileFileError(`${file}: profile "${name}" must be a map of settings`);
  }
  const profile: Profile = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === GENERATED) continue;
    if (!(PROFILE_KEYS as readonly string[]).includes(key)) {
      throw new ProfileFileError(
        `${file}: profile "${name}": unknown key "${key}" (known: ${PROFILE_KEYS.join(', ')})`,
        'unknown_key',
      );
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      throw new ProfileFileError(`${file}: profile "${name}": "${key}" must be a string`);
    }
    const k = key as ProfileKey;
    const s = String(v);
    profile[k] = PROFILE_PATH_KEYS.includes(k) && !isAbsolute(s) ? resolve(dirname(file), s) : s;
  }
  return profile;
}

const fingerprint = (p: Profile) =>
  createHash('sha256')
    .update(JSON.stringify(PROFILE_KEYS.map((k) => p[k] ?? null)))
    .digest('hex')
    .slice(0, 16);

/**
 * Writes `profile` as profile `name` of `file` (mode 0600, other profiles
 * and comments kept), unless that profile exists and was edited since a
 * previous call wrote it, or was never written by one: then it is left as
 * it is and "kept" returned.
 */
export async function writeGeneratedProfile(
  file: string,
  name: string,
  profile: Profile,
): Promise<'written' | 'kept'> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const doc = text ? parseDocument(text) : new Document({ profiles: {} });
  if (doc.errors.length > 0) return 'kept';
  const existing = doc.getIn(['profiles', name]);
  if (existing !== undefined) {
    const current = isMap(existing) ? (existing.toJSON() as Record<string, string>) : {};
    const { [GENERATED]: mark, ...settings } = current;
    if (mark === undefined || mark !== fingerprint(settings as Profile)) return 'kept';
  }
  const entry: Record<string, string> = {};
  for (const k of PROFILE_KEYS) if (profile[k] !== undefined) entry[k] = profile[k] as string;
  entry[GENERATED] = fingerprint(profile);
  if (!text) {
    doc.commentBefore =
      ' bridgectl profiles (cmd/bridgectl/README.md). "bridge dev" rewrites the profile it\n' +
      ' generated while its settings are unchanged; edit one and it is yours.';
  }
  if (!doc.hasIn(['profiles'])) doc.set('profiles', doc.createNode({}));
  doc.setIn(['profiles', name], doc.createNode(entry));
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, doc.toString(), { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
  return 'written';
}

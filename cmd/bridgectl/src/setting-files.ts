import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { ProfileKey } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import { type Settings, whatIs } from './connection-settings.js';
import { EXIT } from './exit-codes.js';

/** The PEM material of the settings' files, each checked to be what its setting says. */
export interface SettingFiles {
  ca: string;
  cert: string;
  key: string;
  jwtKey: string;
}

/** A file argument for a shell command: quoted when it has to be. */
export const shellArg = (s: string) =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Reads the CA bundle, client certificate and key, and JWT key of
 * `settings`. Each failure is a CliError (exit 3) naming the file, the
 * flag, variable or profile key it came from, and the fix: so a user never
 * meets the SDK's option names (`jwt.privateKey: …`).
 */
export function readSettingFiles(settings: Settings): SettingFiles {
  const file = (key: ProfileKey) => settings.values[key] as string;
  const fail = (key: ProfileKey, problem: string) =>
    new CliError(EXIT.file, `${whatIs(key)} ${file(key)} (${settings.from[key]}) ${problem}`);

  const read = (key: ProfileKey, secret: boolean): string => {
    let text: string;
    try {
      if (secret) checkPrivate(key);
      text = readFileSync(file(key), 'utf8');
    } catch (err) {
      if (err instanceof CliError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new CliError(
        EXIT.file,
        `cannot read ${whatIs(key)} (${settings.from[key]}) ${file(key)}: ${code}`,
      );
    }
    if (!text.includes('-----BEGIN ')) throw fail(key, 'holds no PEM');
    return text;
  };

  /**
   * Refuses a private key other users may read, as ssh does: only for a
   * file of this user (another's cannot be fixed with chmod), and not on
   * Windows, whose permissions are ACLs that mode bits do not show.
   */
  const checkPrivate = (key: ProfileKey) => {
    const mode = openToOthers(file(key));
    if (mode === undefined) return;
    throw fail(
      key,
      `is open to other users (mode ${mode}); a private key must be yours alone: run \`chmod 600 ${shellArg(file(key))}\``,
    );
  };

  const certificate = (key: ProfileKey, text: string): X509Certificate => {
    try {
      return new X509Certificate(text);
    } catch {
      throw fail(key, 'holds no readable certificate');
    }
  };
  const privateKey = (key: ProfileKey, text: string): KeyObject => {
    try {
      return createPrivateKey(text);
    } catch (err) {
      const encrypted = /passphrase|encrypted/i.test((err as Error).message);
      throw fail(
        key,
        encrypted
          ? 'is encrypted; bridgectl needs it unencrypted (PKCS#8, PKCS#1 or SEC1 PEM)'
          : 'holds no readable private key',
      );
    }
  };

  const ca = read('ca', false);
  certificate('ca', ca);
  const cert = read('cert', false);
  const leaf = certificate('cert', cert);
  const key = read('key', true);
  if (!leaf.checkPrivateKey(privateKey('key', key))) {
    throw fail(
      'key',
      `does not belong to the client certificate ${file('cert')} (${settings.from.cert})`,
    );
  }
  const jwtKey = read('jwt_key', true);
  const type = privateKey('jwt_key', jwtKey).asymmetricKeyType;
  if (type !== 'ed25519') {
    throw fail(
      'jwt_key',
      `is not an Ed25519 key (it is ${type?.toUpperCase()}); \`bridge-ca jwt-keygen\` makes one`,
    );
  }
  return { ca, cert, key, jwtKey };
}

/**
 * The mode of `path` when other users may read it and it is this user's
 * (ssh's rule: another's file cannot be fixed with chmod); never on
 * Windows, whose permissions are ACLs that mode bits do not show.
 */
export function openToOthers(path: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const st = statSync(path);
  if (st.uid !== process.getuid?.() || (st.mode & 0o077) === 0) return undefined;
  return (st.mode & 0o777).toString(8).padStart(4, '0');
}

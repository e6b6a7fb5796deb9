import type { CliIo } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import { EXIT } from '../exit-codes.js';
import { readInput } from './files.js';

const PASSPHRASE_ENV = 'BRIDGE_CA_PASSPHRASE';

/**
 * The fewest characters (Unicode code points) a new CA passphrase may have.
 * Whoever copies the encrypted CA key can guess its passphrase offline, and
 * PBKDF2 only makes each guess cost about 0.1 s: a 1- to 4-character
 * passphrase falls in hours. 8 is the minimum NIST SP 800-63B sets for a
 * chosen secret, and above the 4 that OpenSSL's own prompt requires for a
 * new PEM passphrase.
 * Keys already encrypted with a shorter one are still opened.
 */
export const MIN_NEW_PASSPHRASE_LENGTH = 8;

/**
 * The CA passphrase from, in order: --passphrase-file, the environment, or
 * a prompt on a terminal. Never from the command line, where it would sit
 * in shell history and the process list. `newKey`: the passphrase is for a
 * key about to be encrypted: asked twice on a terminal, and refused (usage
 * error) when shorter than MIN_NEW_PASSPHRASE_LENGTH.
 */
export async function readPassphrase(
  io: CliIo,
  file: string | undefined,
  opts: { newKey?: boolean } = {},
): Promise<string> {
  const newKey = opts.newKey === true;
  if (file !== undefined) {
    // One trailing newline is the file's, not the passphrase's.
    const text = (await readInput(file, 'passphrase file')).replace(/\r?\n$/, '');
    if (text.length === 0) throw new CliError(EXIT.passphrase, `passphrase file ${file} is empty`);
    if (newKey) checkNewPassphrase(text, `passphrase file ${file}`);
    return text;
  }
  const fromEnv = io.env[PASSPHRASE_ENV];
  if (fromEnv !== undefined && fromEnv.length > 0) {
    if (newKey) checkNewPassphrase(fromEnv, PASSPHRASE_ENV);
    return fromEnv;
  }
  if (!io.promptSecret) {
    throw new CliError(
      EXIT.passphrase,
      `no passphrase: use --passphrase-file FILE or ${PASSPHRASE_ENV}, or run on a terminal`,
    );
  }
  const first = await io.promptSecret('CA key passphrase: ');
  if (first.length === 0) throw new CliError(EXIT.passphrase, 'the passphrase is empty');
  if (newKey) {
    checkNewPassphrase(first, 'the passphrase typed');
    if ((await io.promptSecret('Repeat the passphrase: ')) !== first) {
      throw new CliError(EXIT.passphrase, 'the passphrases do not match');
    }
  }
  return first;
}

function checkNewPassphrase(passphrase: string, source: string): void {
  const length = [...passphrase].length;
  if (length >= MIN_NEW_PASSPHRASE_LENGTH) return;
  throw new CliError(
    EXIT.usage,
    `the new CA passphrase (${source}) has ${length} character${length === 1 ? '' : 's'}; it needs at least ${MIN_NEW_PASSPHRASE_LENGTH}, since whoever copies the encrypted key can guess a short one offline`,
  );
}

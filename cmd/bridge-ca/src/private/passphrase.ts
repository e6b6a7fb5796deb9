import type { CliIo } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import { EXIT } from '../exit-codes.js';
import { readInput } from './files.js';

const PASSPHRASE_ENV = 'BRIDGE_CA_PASSPHRASE';

/**
 * The CA passphrase from, in order: --passphrase-file, the environment, or
 * a prompt on a terminal. Never from the command line, where it would sit
 * in shell history and the process list.
 */
export async function readPassphrase(
  io: CliIo,
  file: string | undefined,
  opts: { confirm?: boolean } = {},
): Promise<string> {
  if (file !== undefined) {
    // One trailing newline is the file's, not the passphrase's.
    const text = (await readInput(file, 'passphrase file')).replace(/\r?\n$/, '');
    if (text.length === 0) throw new CliError(EXIT.passphrase, `passphrase file ${file} is empty`);
    return text;
  }
  const fromEnv = io.env[PASSPHRASE_ENV];
  if (fromEnv !== undefined && fromEnv.length > 0) return fromEnv;
  if (!io.promptSecret) {
    throw new CliError(
      EXIT.passphrase,
      `no passphrase: use --passphrase-file FILE or ${PASSPHRASE_ENV}, or run on a terminal`,
    );
  }
  const first = await io.promptSecret('CA key passphrase: ');
  if (first.length === 0) throw new CliError(EXIT.passphrase, 'the passphrase is empty');
  if (opts.confirm && (await io.promptSecret('Repeat the passphrase: ')) !== first) {
    throw new CliError(EXIT.passphrase, 'the passphrases do not match');
  }
  return first;
}

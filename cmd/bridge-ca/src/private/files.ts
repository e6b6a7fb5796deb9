import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError } from '@agent-bridge/cli';
import { EXIT } from '../exit-codes.js';

/** Reads a text file, turning each way it can fail into one clear line. */
export async function readInput(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be read (${code ?? 'error'})`;
    throw new CliError(EXIT.file, `${what} ${path} ${why}`);
  }
}

export interface OutputFile {
  path: string;
  content: string;
  /** 0o600 for private keys. */
  mode: number;
}

export const PUBLIC_MODE = 0o644;
export const SECRET_MODE = 0o600;

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Fails before anything is written if any output exists and overwriting was not asked for. */
export async function checkOutputs(paths: string[], force: boolean): Promise<void> {
  if (force) return;
  for (const path of paths) {
    if (await exists(path)) {
      throw new CliError(EXIT.file, `${path} already exists; use --force to overwrite it`);
    }
  }
}

/**
 * Writes every file through a temporary name and rename, so a reader never
 * sees half a key and an existing file is replaced only as a whole. The mode
 * is set on the temporary file before any content goes in.
 */
export async function writeOutputs(files: OutputFile[], force: boolean): Promise<void> {
  await checkOutputs(
    files.map((f) => f.path),
    force,
  );
  for (const file of files) {
    try {
      await mkdir(dirname(file.path), { recursive: true });
      const temp = `${file.path}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(temp, '', { mode: file.mode, flag: 'wx' });
      await chmod(temp, file.mode);
      await writeFile(temp, file.content);
      if (!force && (await exists(file.path))) {
        throw new CliError(EXIT.file, `${file.path} already exists; use --force to overwrite it`);
      }
      await rename(temp, file.path);
    } catch (error) {
      if (error instanceof CliError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new CliError(EXIT.file, `cannot write ${file.path} (${code})`);
    }
  }
}

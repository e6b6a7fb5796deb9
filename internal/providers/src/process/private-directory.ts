import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates `dir` (mode 0700) if needed and checks that it is a real
 * directory of this user that nobody else may write. Whoever can write the
 * process group record can make the next daemon SIGKILL what it names, so a
 * shared or planted directory (a symlink in /tmp) is refused.
 */
export function ensurePrivateDirectory(dir: string): void {
  makeDirectories(dir, 0o700);
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory (a symlink is refused)`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid)
    throw new Error(`${dir} belongs to uid ${st.uid}, not to this user (uid ${uid})`);
  if ((st.mode & 0o022) !== 0)
    throw new Error(
      `${dir} may be written by others (mode ${(st.mode & 0o777).toString(8)}): make it 0700`,
    );
}

/**
 * `mkdir -p`, one level at a time. Not `mkdirSync(…, { recursive: true })`:
 * on Node 20 that retries without end where a parent exists but takes no
 * new entries (under /proc: ENOENT, EEXIST, ENOENT, …), and the caller
 * never returns. Throws the first error with the directory it was making.
 */
export function makeDirectories(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(`cannot create ${d} (${(err as NodeJS.ErrnoException).code})`);
    }
  }
}

import { lstatSync, mkdirSync } from 'node:fs';

/**
 * Creates `dir` (mode 0700) if needed and checks that it is a real
 * directory of this user that nobody else may write. Whoever can write the
 * process group record can make the next daemon SIGKILL what it names, so a
 * shared or planted directory (a symlink in /tmp) is refused.
 */
export function ensurePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
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

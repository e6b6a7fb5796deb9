import { realpath, stat } from 'node:fs/promises';

/**
 * What makes a binary the same file as before: where it resolves to (links
 * followed) and the file's device, inode, size and times. An upgrade, a
 * reinstall or a relinked PATH entry changes at least one of them; as long
 * as none changes, what `--version` said of the file still holds.
 */
export interface BinaryIdentity {
  /** The path as resolved (configured, or found on PATH). */
  path: string;
  realPath: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Changes with every write, rename or chmod, and cannot be set back. */
  ctimeMs: number;
}

export async function binaryIdentity(path: string): Promise<BinaryIdentity> {
  const realPath = await realpath(path);
  const st = await stat(realPath);
  return {
    path,
    realPath,
    dev: st.dev,
    ino: st.ino,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
  };
}

/** A string equal for two identities exactly when they are the same file, unchanged. */
export function identityKey(id: BinaryIdentity): string {
  return [id.realPath, id.dev, id.ino, id.size, id.mtimeMs, id.ctimeMs].join('\0');
}

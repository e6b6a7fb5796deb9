import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';
import { isAbsolute, normalize } from 'node:path';
import type { Logger } from '../types.js';

/** Where Linux lists a process's own open files, each as a link to what it is. */
const PROC_SELF_FD = '/proc/self/fd';

/**
 * A directory the daemon holds open. Whatever later happens to the path it
 * was opened by (renamed, replaced by a symlink, removed), `cwd` keeps
 * leading to this very directory until `close`.
 */
export interface PinnedDirectory {
  /** Where the kernel says the open directory is: what gets authorised. */
  readonly path: string;
  /**
   * The spawn working directory: the directory's magic link in the fd
   * table (`/proc/self/fd/<fd>`). A child forked by the daemon inherits the
   * descriptor until it execs, and libuv chdirs before exec, so the kernel
   * resolves "self" in the child to its own copy of that descriptor: the
   * agent lands in the opened directory, not wherever the path now points.
   */
  readonly cwd: string;
  /** Releases the descriptor; safe to call more than once. */
  close(): Promise<void>;
}

/** Why a path could not be pinned, in the terms the policy reports. */
export type PinFailure =
  /** Nothing there, a dangling or looping symlink, or removed while being opened. */
  | 'missing'
  /** Something that is not a directory. */
  | 'not_directory'
  /** The kernel names it outside this process's view of the file system. */
  | 'unreachable'
  | 'too_many_open_files'
  /** It exists but cannot be opened (permissions, I/O). */
  | 'unusable'
  /** No fd table to read back (not Linux, or no /proc). */
  | 'unsupported';

export type PinResult =
  | { ok: true; dir: PinnedDirectory }
  | { ok: false; failure: PinFailure; detail: string };

/**
 * Opens `path` as a directory (following symlinks, as a chdir would) and
 * reads back from the kernel which directory was opened. The caller
 * authorises `dir.path` and spawns in `dir.cwd`, so the check and the use
 * are about the same directory and no swap of the path in between can
 * redirect the agent. `fdDir` is this process's fd directory (a test may
 * point it elsewhere to play a platform without one).
 */
export async function pinDirectory(path: string, fdDir = PROC_SELF_FD): Promise<PinResult> {
  let fh: FileHandle;
  try {
    // O_DIRECTORY: a file, FIFO or device fails at once (ENOTDIR), never blocks.
    fh = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    return failed(err);
  }
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= fh.close().catch(() => undefined);
    return closed;
  };
  const cwd = `${fdDir}/${fh.fd}`;
  let where: string;
  try {
    where = await readlink(cwd);
  } catch (err) {
    await close();
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return { ok: false, failure: 'unsupported', detail: `${cwd}: ${code}` };
  }
  try {
    // Removed since it was opened: the kernel appends " (deleted)" to the
    // name it last had; the link count of a directory is 0 once rmdir'd.
    if (where.endsWith(' (deleted)') && (await fh.stat()).nlink === 0) {
      await close();
      return { ok: false, failure: 'missing', detail: 'removed while being opened' };
    }
  } catch (err) {
    await close();
    return failed(err);
  }
  if (!isAbsolute(where) || normalize(where) !== where) {
    await close();
    return { ok: false, failure: 'unreachable', detail: where };
  }
  return { ok: true, dir: { path: where, cwd, close } };
}

/** Whether this platform can pin directories at all (see pinDirectory). */
export function canPin(fdDir = PROC_SELF_FD): boolean {
  return existsSync(fdDir);
}

/** Tells the operator, once, that every repo_path will be refused here (no /proc/self/fd). */
export function warnIfUnpinnable(logger: Pick<Logger, 'warn'>, fdDir = PROC_SELF_FD): void {
  if (canPin(fdDir)) return;
  logger.warn(
    { reason: 'path_pinning_unsupported' },
    'no /proc/self/fd on this platform: StartSession refuses every repo_path, since the agent could not be held to the directory that was checked',
  );
}

function failed(err: unknown): PinResult {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  return { ok: false, failure: classify(code), detail: code };
}

function classify(code: string): PinFailure {
  switch (code) {
    case 'ENOENT':
    case 'ELOOP':
    case 'ENAMETOOLONG':
      return 'missing';
    case 'ENOTDIR':
      return 'not_directory';
    case 'EMFILE':
    case 'ENFILE':
      return 'too_many_open_files';
    default:
      return 'unusable';
  }
}

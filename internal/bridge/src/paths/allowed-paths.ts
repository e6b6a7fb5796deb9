import { realpathSync } from 'node:fs';
import { readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { type BridgeError, denied, exhausted, invalid, precondition } from '../errors.js';
import { preview } from '../validate.js';
import { type PinFailure, type PinnedDirectory, pinDirectory } from './pinned-directory.js';

/**
 * Policy for `repo_path`: a repository must be (inside) a directory matching
 * one of the configured patterns. Matching is per path segment: "*" matches
 * within one segment, never across "/", so "/home/*\/repos" covers
 * "/home/x/repos/a" but not "/home/x/reposevil". Both the repository and the
 * patterns' fixed prefixes are compared by real path, so a symlink inside an
 * allowed root that points outside it is refused.
 *
 * The check is made on the directory that will be used, not on its name:
 * `open` holds the directory open and authorises what the kernel says the
 * open directory is, and the agent is spawned in that open directory (see
 * pinned-directory.ts), so swapping the path for a symlink between the
 * check and the spawn cannot move the agent elsewhere.
 */
export class AllowedPaths {
  private readonly patterns: RegExp[][];

  /** `fdDir`: this process's fd directory (a test may play a platform without one). */
  constructor(
    patterns: readonly string[],
    private readonly fdDir?: string,
  ) {
    this.patterns = patterns.map((p) => compile(realPrefix(p)));
  }

  /**
   * Validates `repoPath`, opens the directory it names and authorises it.
   * The caller spawns in the result's `cwd`, quotes its `path`, and closes
   * it once the agent is spawned or the start is given up.
   */
  async open(repoPath: string): Promise<PinnedDirectory> {
    checkSyntax(repoPath);
    const pinned = await pinDirectory(repoPath, this.fdDir);
    if (pinned.ok) {
      if (this.allows(pinned.dir.path)) return pinned.dir;
      await pinned.dir.close();
      throw notAllowed(repoPath);
    }
    // Authorise before saying why the path cannot be used: otherwise the
    // status code would tell any caller whether an arbitrary host path
    // (/root/.ssh) exists, or is a file.
    if (pinned.failure === 'unreachable' || !this.allows(await wouldBe(repoPath))) {
      throw notAllowed(repoPath);
    }
    throw unusable(repoPath, pinned.failure, pinned.detail);
  }

  /** True when the real path `real` is one of, or inside one of, the allowed roots. */
  allows(real: string): boolean {
    if (!isAbsolute(real)) return false;
    const segs = real.split(sep).filter(Boolean);
    return this.patterns.some(
      (pat) => segs.length >= pat.length && pat.every((re, i) => re.test(segs[i]!)),
    );
  }
}

const notAllowed = (repoPath: string) =>
  denied(`repo_path ${preview(repoPath)} is not inside an allowed path`, 'path_not_allowed');

/** The refusal for a path inside the roots that cannot be used (see PinFailure). */
function unusable(repoPath: string, failure: PinFailure, detail: string): BridgeError {
  const quoted = `repo_path ${preview(repoPath)}`;
  switch (failure) {
    case 'missing':
      return precondition(`${quoted} does not exist`, 'path_missing');
    case 'not_directory':
      return precondition(`${quoted} is not a directory`, 'path_not_directory');
    case 'too_many_open_files':
      return exhausted(`too many open files to open ${quoted}`, 'too_many_open_files');
    case 'unsupported':
      return precondition(
        `sessions cannot start on this platform: the daemon cannot hold ${quoted} open and spawn in it (${detail}; needs Linux /proc)`,
        'path_pinning_unsupported',
      );
    default:
      return precondition(`${quoted} cannot be opened (${detail})`, 'path_unusable');
  }
}

/** How many dangling symlinks `wouldBe` follows before it gives up (the kernel's own limit). */
const MAX_LINKS = 40;

/**
 * Where `p` leads, or would lead if it existed: its real path, else the
 * real path of its parent joined with its last segment, following a
 * dangling symlink there as opening it would. It only decides which
 * refusal to give, so a path through a symlink that leaves the roots is
 * refused as outside even when its target does not exist.
 */
async function wouldBe(p: string, links = 0): Promise<string> {
  const real = await realpath(p).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = dirname(p);
  if (parent === p) return p;
  const at = join(await wouldBe(parent, links), basename(p));
  const target = await readlink(at).catch(() => undefined);
  if (target === undefined || links >= MAX_LINKS) return at;
  return wouldBe(resolve(dirname(at), target), links + 1);
}

/** Rejects paths that are not plain absolute, normalised paths. */
function checkSyntax(p: string): void {
  if (p.length === 0) throw invalid('repo_path is required', 'repo_path_invalid');
  if (p.includes('\0')) throw invalid('repo_path contains a NUL byte', 'repo_path_invalid');
  if (!isAbsolute(p)) {
    throw invalid(`repo_path ${preview(p)} must be absolute`, 'repo_path_invalid');
  }
  const trimmed = p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
  if (normalize(trimmed) !== trimmed) {
    throw invalid(
      `repo_path ${preview(p)} is not normalised (no "..", ".", or "//")`,
      'repo_path_invalid',
    );
  }
}

/** Replaces the glob-free leading part of a pattern by its real path, when it exists. */
function realPrefix(pattern: string): string {
  const segs = pattern.split('/');
  const firstGlob = segs.findIndex((s) => /[*?[]/.test(s));
  const fixed = (firstGlob === -1 ? segs : segs.slice(0, firstGlob)).join('/') || '/';
  const rest = firstGlob === -1 ? [] : segs.slice(firstGlob);
  let real = fixed;
  try {
    real = realpathSync(fixed);
  } catch {
    // A root that does not exist yet still matches by its literal path.
  }
  return [real === '/' ? '' : real, ...rest].join('/');
}

function compile(pattern: string): RegExp[] {
  return pattern
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      const body = seg
        .split('')
        .map((c) =>
          c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return new RegExp(`^${body}$`);
    });
}

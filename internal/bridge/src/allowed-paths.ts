import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { denied, invalid, precondition } from './errors.js';

/**
 * Policy for `repo_path`: a repository must be (inside) a directory matching
 * one of the configured patterns. Matching is per path segment: "*" matches
 * within one segment, never across "/", so "/home/*\/repos" covers
 * "/home/x/repos/a" but not "/home/x/reposevil". Both the repository and the
 * patterns' fixed prefixes are compared by real path, so a symlink inside an
 * allowed root that points outside it is refused.
 */
export class AllowedPaths {
  private readonly patterns: RegExp[][];

  constructor(patterns: readonly string[]) {
    this.patterns = patterns.map((p) => compile(realPrefix(p)));
  }

  /** Validates, resolves and authorises `repoPath`; returns its real path. */
  async resolve(repoPath: string): Promise<string> {
    checkSyntax(repoPath);
    const real = await realpath(repoPath).catch(() => undefined);
    if (real === undefined) {
      // Authorise before reporting absence: otherwise the status code would
      // tell any caller whether an arbitrary host path (/root/.ssh) exists.
      if (!this.allows(await resolveMissing(repoPath))) {
        throw denied(
          `repo_path ${JSON.stringify(repoPath)} is not inside an allowed path`,
          'path_not_allowed',
        );
      }
      throw precondition(`repo_path ${JSON.stringify(repoPath)} does not exist`, 'path_missing');
    }
    if (!this.allows(real)) {
      throw denied(
        `repo_path ${JSON.stringify(repoPath)} is not inside an allowed path`,
        'path_not_allowed',
      );
    }
    const st = await stat(real);
    if (!st.isDirectory())
      throw precondition(
        `repo_path ${JSON.stringify(repoPath)} is not a directory`,
        'path_not_directory',
      );
    return real;
  }

  /** True when the real path `real` is one of, or inside one of, the allowed roots. */
  allows(real: string): boolean {
    const segs = real.split(sep).filter(Boolean);
    return this.patterns.some(
      (pat) => segs.length >= pat.length && pat.every((re, i) => re.test(segs[i]!)),
    );
  }
}

/**
 * The path `p` would have if it existed: the real path of its longest
 * existing ancestor (so symlinks are followed as they would be) followed by
 * the missing segments.
 */
async function resolveMissing(p: string): Promise<string> {
  const missing: string[] = [];
  let dir = p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
  for (;;) {
    const parent = dirname(dir);
    missing.unshift(basename(dir));
    const real = await realpath(parent).catch(() => undefined);
    if (real !== undefined) return join(real, ...missing);
    if (parent === dir) return p;
    dir = parent;
  }
}

/** Rejects paths that are not plain absolute, normalised paths. */
function checkSyntax(p: string): void {
  if (p.length === 0) throw invalid('repo_path is required', 'repo_path_invalid');
  if (p.includes('\0')) throw invalid('repo_path contains a NUL byte', 'repo_path_invalid');
  if (!isAbsolute(p)) {
    throw invalid(`repo_path ${JSON.stringify(p)} must be absolute`, 'repo_path_invalid');
  }
  const trimmed = p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
  if (normalize(trimmed) !== trimmed) {
    throw invalid(
      `repo_path ${JSON.stringify(p)} is not normalised (no "..", ".", or "//")`,
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

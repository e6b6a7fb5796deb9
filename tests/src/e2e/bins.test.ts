/**
 * A first install must link every command without a warning. pnpm links a
 * package's `bin` at install time, before anything is built, so a bin that
 * points into dist/ fails on a clean clone ("Failed to create bin …") and the
 * commands are missing from node_modules/.bin. Each bin is therefore a small
 * committed file that imports the built entry point.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { REPO_ROOT } from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';

const tracked = new Set(
  execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n'),
);
const manifests = [...tracked].filter((f) =>
  /^(cmd|packages|internal)\/[^/]+\/package\.json$/.test(f),
);

const bins = manifests.flatMap((manifest) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, manifest), 'utf8')) as {
    bin?: Record<string, string>;
    files?: string[];
  };
  return Object.entries(pkg.bin ?? {}).map(([name, target]) => ({
    name,
    file: normalize(join(dirname(manifest), target)),
    files: pkg.files ?? [],
  }));
});

describe('package bins', () => {
  it('there are the three commands', () => {
    expect(bins.map((b) => b.name).sort()).toEqual(['bridge', 'bridge-ca', 'bridgectl']);
  });

  it.each(bins)('$name is a committed, executable file shipped in the package', (bin) => {
    expect(tracked.has(bin.file), `${bin.file} is not in git: a clean clone cannot link it`).toBe(
      true,
    );
    expect(statSync(join(REPO_ROOT, bin.file)).mode & 0o111).not.toBe(0);
    const source = readFileSync(join(REPO_ROOT, bin.file), 'utf8');
    expect(source.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(source).toContain("import '../dist/main.js';");
    expect(bin.files).toContain(bin.file.split('/')[2]);
  });
});

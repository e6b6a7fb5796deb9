/**
 * `npm run build` says what it builds (tsc -b alone is silent for a minute
 * or more), passes tsc's diagnostics through and exits with tsc's code.
 * Run here on a one-file project of its own, so the test builds in a
 * moment whatever state the workspace is in.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'build-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(source: string): string {
  writeFileSync(join(dir, 'main.ts'), source);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { composite: true, strict: true, outDir: 'dist' },
      files: ['main.ts'],
    }),
  );
  return join(dir, 'tsconfig.json');
}

const build = (tsconfig: string) =>
  spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs'), tsconfig], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });

describe('npm run build', () => {
  it('names each package it builds and says when it is done', () => {
    const r = build(project('export const n: number = 1;\n'));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'build: tsc -b, every package of the workspace (unchanged ones are skipped)',
      `build: ${relative(REPO_ROOT, dir)}`,
      'build: cmd/bridgectl/console (the web console page)',
      expect.stringMatching(/^build: done in \d+ s \(1 package built, the rest up to date\)$/),
    ]);
  });

  it('passes a type error through and fails as tsc does', () => {
    const r = build(project("export const n: number = 'one';\n"));
    expect(r.status).toBeGreaterThan(0);
    expect(r.stdout).toContain(
      "main.ts(1,14): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
    expect(r.stderr).not.toContain('build: done');
  });
});

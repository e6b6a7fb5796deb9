#!/usr/bin/env node
// `pnpm package [dir]`: builds the daemon and bridge-ca and writes a self-contained
// installation (default dist/deploy/): the @agent-bridge/service package of
// packaging/ deployed by pnpm with production dependencies only, so the
// daemon and bridge-ca run with plain node from wherever the directory is
// copied. Layout and use: docs/operations.md.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(
  process.env.INIT_CWD ?? process.cwd(),
  process.argv[2] ?? join(root, 'dist/deploy'),
);

/** Runs a Node program of the workspace's own devDependencies; exits on failure. */
function node(what, args) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`package: ${what} failed\n`);
    process.exit(r.status ?? 1);
  }
}

ensureDeps();
// packaging/tsconfig.json references exactly the programs the installation holds.
node('tsc -b packaging', [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packaging']);
// bridgectl's web console page: bundled, not emitted by tsc; the package ships it.
node('build-console', [join(root, 'scripts/build-console.mjs')]);
rmSync(out, { recursive: true, force: true });
// --legacy: pnpm 10's default deploy needs inject-workspace-packages=true,
// which would make every workspace dependency a copy in development too
// (edits to one package unseen by the others until the next install). The
// legacy implementation copies the workspace packages into the target only,
// at the versions of pnpm-lock.yaml.
node('pnpm deploy', [
  join(root, 'node_modules/pnpm/bin/pnpm.cjs'),
  '--filter',
  '@agent-bridge/service',
  'deploy',
  '--prod',
  '--legacy',
  out,
]);
process.stdout.write(`package: wrote ${out}\n`);

#!/usr/bin/env node
// Installs the workspace's dependencies with the pinned pnpm when they are
// missing or older than pnpm-lock.yaml, so `npm run dev` and `npm test` work
// on a machine that has Node and npm but no pnpm. Quiet when up to date.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmSpec = pkg.packageManager; // e.g. "pnpm@10.34.8"
const stamp = join(root, 'node_modules', '.agent-bridge-install');

export function ensureDeps() {
  const lock = readFileSync(join(root, 'pnpm-lock.yaml'));
  const want = createHash('sha256').update(lock).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  process.stderr.write(`agent-bridge: installing dependencies with ${pnpmSpec} ...\n`);
  const r = spawnSync('npx', ['-y', pnpmSpec, 'install', '--frozen-lockfile'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    process.stderr.write('agent-bridge: dependency install failed\n');
    process.exit(r.status ?? 1);
  }
  writeFileSync(stamp, want);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureDeps();

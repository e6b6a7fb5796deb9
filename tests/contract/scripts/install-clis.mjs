#!/usr/bin/env node
// Installs the pinned agent CLIs for the contract tests into
// tests/contract/clis/node_modules (about 1 GB, so never part of the default
// install). Idempotent: skips when what is installed matches the lockfile.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'clis');
const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
const stamp = join(dir, 'node_modules', '.installed-lock');
// The stamp is written only after a complete install; the binaries are
// checked too, in case part of node_modules was removed since.
const bins = ['claude', 'codex', 'opencode', 'gemini'].map((b) =>
  join(dir, 'node_modules', '.bin', b),
);
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock && bins.every((b) => existsSync(b))) {
  process.stdout.write('contract CLIs: already installed\n');
  process.exit(0);
}
const started = Date.now();
// `npm install`, not `npm ci`: opencode-ai declares platform packages with
// empty versions that npm leaves out of the lockfile, which `npm ci` then
// rejects as out of sync. The versions are exact pins either way. The claude
// and opencode postinstall scripts link their native binaries: they must run.
execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
writeFileSync(stamp, readFileSync(join(dir, 'package-lock.json'), 'utf8'));
process.stdout.write(
  `contract CLIs: installed in ${Math.round((Date.now() - started) / 1000)} s\n`,
);

#!/usr/bin/env node
// `npm run build`: installs the workspace's dependencies first when they are
// missing (as `npm test` does), then type-checks and emits every package
// with `tsc -b`, naming each one as it is built: tsc alone says nothing for
// a minute or more. Diagnostics pass through as tsc prints them; the exit
// code is tsc's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';
import { ensureDeps } from './ensure-deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureDeps();
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const args = process.argv.slice(2);
const started = Date.now();
process.stderr.write(
  'build: tsc -b, every package of the workspace (unchanged ones are skipped)\n',
);
const child = spawn(process.execPath, [tsc, '-b', '--verbose', ...args], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let built = 0;
const lines = createInterface({ input: child.stdout });
lines.on('line', (line) => {
  // "[12:00:00 AM] Building project '/…/internal/config/tsconfig.json'..."
  const building = /Building project '(.+)\/tsconfig\.json'/.exec(line);
  if (building) {
    built++;
    process.stderr.write(`build: ${relative(root, building[1]) || '.'}\n`);
    return;
  }
  // Up-to-date checks and their reasons are noise; anything else (errors) is not.
  const said = line.replace(/^(?:\[[^\]]*\]|\d{1,2}:\d{2}:\d{2}(?: [AP]M)?)(?: -)? /, '');
  if (said !== line && /^(Projects in this build|Project '|Skipping build|Updating )/.test(said)) {
    return;
  }
  if (/^ {4}\* /.test(line) || line.trim() === '') return;
  process.stdout.write(`${line}\n`);
});
child.on('exit', async (code, signal) => {
  if (code === 0) {
    // The web console's page (browser code: bundled, not emitted by tsc).
    try {
      await buildConsole();
      process.stderr.write('build: cmd/bridgectl/console (the web console page)\n');
    } catch (err) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  if (code === 0) {
    process.stderr.write(
      `build: done in ${seconds} s (${built} package${built === 1 ? '' : 's'} built, the rest up to date)\n`,
    );
  }
  process.exit(code ?? (signal ? 1 : 0));
});

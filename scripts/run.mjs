#!/usr/bin/env node
// Runs a TypeScript entry point of the workspace from source (tsx, with the
// "development" export condition so workspace packages resolve to src/),
// installing dependencies first when needed. Signals are forwarded so the
// daemon can shut down gracefully.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run.mjs <entry.ts> [args...]\n');
  process.exit(2);
}
ensureDeps();
const child = spawn(
  process.execPath,
  ['--conditions=development', '--import', 'tsx', join(root, entry), ...args],
  { stdio: 'inherit', env: { ...process.env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() } },
);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});

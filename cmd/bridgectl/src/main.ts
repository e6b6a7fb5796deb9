#!/usr/bin/env node
// Entry point: `pnpm bridgectl <command>`, or `bridgectl` once built. Wires the real process into the CLI.
import { runCli } from './cli.js';
import { terminalReadAnswer } from './terminal-prompt.js';

const interrupt = new AbortController();
// The first Ctrl-C ends a following stream quietly; a second one leaves at once.
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(130));
});
const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  // Under `pnpm bridgectl`, INIT_CWD is where the user typed the command.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  now: () => new Date(),
  stdoutIsTty: process.stdout.isTTY === true,
  stderrIsTty: process.stderr.isTTY === true,
  signal: interrupt.signal,
  readAnswer: terminalReadAnswer(process.stdin, process.stdout),
});
process.exitCode = exitCode;

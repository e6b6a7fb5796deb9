#!/usr/bin/env node
// Entry point: `npm run bridgectl -- <command>`, or `bridgectl` once built. Wires the real process into the CLI.
import { outputClosed } from '@agent-bridge/cli';
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
  // Under `npm run bridgectl`, INIT_CWD is where the user typed the command.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  now: () => new Date(),
  stdoutIsTty: process.stdout.isTTY === true,
  stderrIsTty: process.stderr.isTTY === true,
  // A closed output (`| head`) stops a command as Ctrl-C does, but quietly.
  signal: AbortSignal.any([interrupt.signal, outputClosed()]),
  readAnswer: terminalReadAnswer(process.stdin, process.stdout),
});
process.exitCode = exitCode;

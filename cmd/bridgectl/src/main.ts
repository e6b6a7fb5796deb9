#!/usr/bin/env node
// Entry point: `npm run bridgectl -- <command>`, or `bridgectl` once built. Wires the real process into the CLI.
import { outputClosed } from '@agent-bridge/cli';
import { scope } from '@agent-bridge/scope';
import { runCli } from './cli.js';
import { terminalReadAnswer } from './terminal-prompt.js';

// The command's scope: the first Ctrl-C ends a following stream quietly (a
// second one leaves at once), and so does a closed output (`| head`).
const command = scope(outputClosed());
process.once('SIGINT', () => {
  command.end();
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
  signal: command.signal,
  readAnswer: terminalReadAnswer(process.stdin, process.stdout),
});
process.exitCode = exitCode;

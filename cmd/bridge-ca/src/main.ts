#!/usr/bin/env node
// Entry point: `npm run bridge-ca -- <command>`. Wires the real process into the CLI.
import { ReadStream } from 'node:tty';
import { runCli } from './cli.js';
import { promptSecretOnTty } from './private/tty-prompt.js';

const stdin = process.stdin;
const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  // Under `npm run bridge-ca` (or pnpm), INIT_CWD is where the user typed the command.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  ...(stdin.isTTY && stdin instanceof ReadStream
    ? { promptSecret: (question: string) => promptSecretOnTty(stdin, process.stderr, question) }
    : {}),
  now: () => new Date(),
});
process.exitCode = exitCode;

#!/usr/bin/env node
// Entry point: `npm run bridgectl -- <command>`, or `bridgectl` once built. Wires the real process into the CLI.
import { outputClosed } from '@agent-bridge/cli';
import { scope } from '@agent-bridge/scope';
import { runCli } from './cli.js';
import { processIo } from './ctl-io.js';
import { terminalReadAnswer } from './terminal-prompt.js';

// The command's scope: the first Ctrl-C ends a following stream quietly (a
// second one leaves at once), and so does a closed output (`| head`).
const command = scope(outputClosed());
process.once('SIGINT', () => {
  command.end();
  process.once('SIGINT', () => process.exit(130));
});
const exitCode = await runCli(process.argv.slice(2), {
  ...processIo(),
  signal: command.signal,
  readAnswer: terminalReadAnswer(process.stdin, process.stdout),
});
process.exitCode = exitCode;

import { type Program, runProgram } from '@agent-bridge/cli';
import { COMMANDS } from './commands/index.js';
import { CONNECTION_OPTIONS } from './connection.js';
import type { CtlIo } from './ctl-io.js';
import { describeError } from './describe-error.js';
import { EXIT, EXIT_LINES } from './exit-codes.js';

const BRIDGECTL: Program<CtlIo> = {
  name: 'bridgectl',
  intro:
    'bridgectl: drive an AI Agent Bridge daemon: health, providers, sessions, events, permissions',
  commands: COMMANDS,
  globalOptions: {
    title: 'connection (flag, else BRIDGECTL_* variable, else profile)',
    options: CONNECTION_OPTIONS,
  },
  notes: [
    'every command takes --json (one JSON document; one object per line for events) and --help.',
    'Connection settings come from flags, else BRIDGECTL_* variables, else the profile named by',
    '--profile or $BRIDGECTL_PROFILE (default "dev") in $BRIDGECTL_PROFILES, else',
    '$XDG_CONFIG_HOME/agent-bridge/profiles.yaml, else ~/.config/agent-bridge/profiles.yaml.',
    '`pnpm dev` writes the "dev" profile, so after it no flag is needed.',
  ],
  footer: ['cmd/bridgectl/README.md has profiles, commands and examples.'],
  exitLines: EXIT_LINES,
  exit: EXIT,
  describeError,
};

/** Runs one bridgectl invocation and returns its exit status. */
export const runCli = (argv: readonly string[], io: CtlIo): Promise<number> =>
  runProgram(BRIDGECTL, argv, io);

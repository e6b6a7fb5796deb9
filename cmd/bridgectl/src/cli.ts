import { fileURLToPath } from 'node:url';
import { type Program, runProgram } from '@agent-bridge/cli';
import { COMMANDS } from './commands/index.js';
import { CONNECTION_OPTIONS } from './connection-settings.js';
import type { CtlIo } from './ctl-io.js';
import { describeError } from './describe-error.js';
import { EXIT, EXIT_LINES } from './exit-codes.js';

/**
 * How this bridgectl runs from its checkout (this file is TypeScript
 * there, JavaScript once built): `npm run bridgectl` in the repository,
 * from whatever directory (npm passes that one on as INIT_CWD). The
 * completion scripts define a `bridgectl` function with it.
 */
const SOURCE_COMMAND = import.meta.url.endsWith('.ts')
  ? [
      'npm',
      '--prefix',
      fileURLToPath(new URL('../../..', import.meta.url)),
      'run',
      '--silent',
      'bridgectl',
      '--',
    ]
  : undefined;

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
    'Every command but completion takes these; every command takes --json (one JSON document;',
    'one object per line for events) and --help.',
    'The profile is the one named by --profile or $BRIDGECTL_PROFILE (default "dev"), in the file',
    '$BRIDGECTL_PROFILES, else $XDG_CONFIG_HOME/agent-bridge/profiles.yaml, else',
    '~/.config/agent-bridge/profiles.yaml. `npm run dev` in the repository writes the "dev"',
    'profile, so after it no flag is needed. The client key and JWT key must be readable by you',
    'alone (chmod 600).',
  ],
  footer: ['cmd/bridgectl/README.md has profiles, commands and examples.'],
  exitLines: EXIT_LINES,
  exit: EXIT,
  describeError,
  ...(SOURCE_COMMAND ? { sourceCommand: SOURCE_COMMAND } : {}),
};

/** Runs one bridgectl invocation and returns its exit status. */
export const runCli = (argv: readonly string[], io: CtlIo): Promise<number> =>
  runProgram(BRIDGECTL, argv, io);

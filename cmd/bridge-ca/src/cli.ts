import { CliError, type CliIo, type Program, runProgram } from '@agent-bridge/cli';
import { PkiError } from '@agent-bridge/pki';
import { COMMANDS } from './commands/index.js';
import { EXIT, PKI_ERROR_EXIT } from './exit-codes.js';

const EXIT_LINES = [
  `  ${EXIT.ok}   success (also "not due" for renew --if-expiring-within)`,
  `  ${EXIT.verifyFailed}   verify: the certificate did not validate`,
  `  ${EXIT.usage}   usage: unknown command or option, missing or invalid value, invalid CN or SAN, new passphrase too short`,
  `  ${EXIT.file}   file: input missing or unreadable, output exists (use --force), cannot write`,
  `  ${EXIT.passphrase}   passphrase: wrong, empty, or none available`,
  `  ${EXIT.caRefused}   CA refused: not a CA, expired, key does not match, not the issuer`,
  `  ${EXIT.badInput}   bad input: a file is not the certificate, key or CRL expected (a CA where a leaf is expected)`,
  `  ${EXIT.internal}  internal error`,
];

const BRIDGE_CA: Program = {
  name: 'bridge-ca',
  intro:
    'bridge-ca: the PKI tool of the AI Agent Bridge (CAs, certificates, cross-signing, CRLs, JWT keys)',
  commands: COMMANDS,
  notes: [
    'every command takes --json (machine-readable output) and --help.',
    'CA key passphrase: --passphrase-file FILE, else $BRIDGE_CA_PASSPHRASE, else a terminal prompt;',
    'never on the command line. Private keys are written mode 0600; existing files are kept',
    'unless --force is given.',
  ],
  footer: ['docs/pki.md has the walkthrough.'],
  exitLines: EXIT_LINES,
  exit: EXIT,
  precheck(args) {
    if (args.some((a) => a === '--passphrase' || a.startsWith('--passphrase='))) {
      throw new CliError(
        EXIT.usage,
        '--passphrase is not accepted: passphrases never go on the command line; use --passphrase-file or BRIDGE_CA_PASSPHRASE',
      );
    }
  },
  describeError: (error) =>
    error instanceof PkiError
      ? { exitCode: PKI_ERROR_EXIT[error.code], message: error.message }
      : undefined,
};

/** Runs one bridge-ca invocation and returns its exit status. */
export const runCli = (argv: readonly string[], io: CliIo): Promise<number> =>
  runProgram(BRIDGE_CA, argv, io);

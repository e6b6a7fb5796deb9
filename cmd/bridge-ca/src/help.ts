import type { Command } from './command.js';
import { EXIT } from './exit-codes.js';

const EXIT_LINES = [
  `  ${EXIT.ok}   success (also "not due" for renew --if-expiring-within)`,
  `  ${EXIT.verifyFailed}   verify: the certificate did not validate`,
  `  ${EXIT.usage}   usage: unknown command or option, missing or invalid value, invalid CN or SAN`,
  `  ${EXIT.file}   file: input missing or unreadable, output exists (use --force), cannot write`,
  `  ${EXIT.passphrase}   passphrase: wrong, empty, or none available`,
  `  ${EXIT.caRefused}   CA refused: not a CA, expired, key does not match, not the issuer`,
  `  ${EXIT.badInput}   bad input: a file is not the certificate, key or CRL expected`,
  `  ${EXIT.internal}  internal error`,
];

export function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'bridge-ca: the PKI tool of the AI Agent Bridge (CAs, certificates, cross-signing, CRLs, JWT keys)',
    '',
    'usage: bridge-ca <command> [options]     bridge-ca <command> --help',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'every command takes --json (machine-readable output) and --help.',
    'CA key passphrase: --passphrase-file FILE, else $BRIDGE_CA_PASSPHRASE, else a terminal prompt;',
    'never on the command line. Private keys are written mode 0600; existing files are kept',
    'unless --force is given.',
    '',
    'exit status:',
    ...EXIT_LINES,
    '',
    'docs/pki.md has the walkthrough.',
    '',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const entries = Object.entries(command.options).map(([name, spec]) => {
    const left = `--${name}${spec.value ? ` ${spec.value}` : ''}`;
    const tags = [spec.required ? 'required' : '', spec.multiple ? 'repeatable' : '']
      .filter(Boolean)
      .join(', ');
    return { left, right: `${spec.description}${tags ? ` [${tags}]` : ''}` };
  });
  entries.push({ left: '--json', right: 'print the result as JSON' });
  entries.push({ left: '--help', right: 'show this help' });
  const width = Math.max(...entries.map((e) => e.left.length));
  return [
    `bridge-ca ${command.name}: ${command.summary}`,
    '',
    `usage: ${command.usage}`,
    '',
    'options:',
    ...entries.map((e) => `  ${e.left.padEnd(width)}  ${e.right}`),
    ...(command.notes?.length ? ['', ...command.notes] : []),
    '',
    'exit status:',
    ...EXIT_LINES,
    '',
  ].join('\n');
}

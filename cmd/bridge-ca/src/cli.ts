import { isAbsolute, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { PkiError } from '@agent-bridge/pki';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { Command, CommandResult, OptionValues } from './command.js';
import { COMMANDS } from './commands/index.js';
import { EXIT, PKI_ERROR_EXIT } from './exit-codes.js';
import { commandHelp, mainHelp } from './help.js';

/** Runs one bridge-ca invocation and returns its exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const json = rest.includes('--json');
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      io.stdout(mainHelp(COMMANDS));
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new CliError(EXIT.usage, `unknown command "${name}"; see bridge-ca --help`);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(commandHelp(command));
      return EXIT.ok;
    }
    const result = await command.run(parseCommandLine(command, rest, io, json));
    const exitCode = result.exitCode ?? EXIT.ok;
    report(io, result, json, exitCode);
    return exitCode;
  } catch (error) {
    const { exitCode, message } = describeError(error);
    io.stderr(
      json
        ? `${JSON.stringify({ ok: false, exitCode, error: message })}\n`
        : `bridge-ca: ${message}\n`,
    );
    return exitCode;
  }
}

function report(io: CliIo, result: CommandResult, json: boolean, exitCode: number): void {
  if (json) {
    io.stdout(`${JSON.stringify(result.json, null, 2)}\n`);
  } else if (exitCode === EXIT.ok) {
    io.stdout(`${result.text.join('\n')}\n`);
  } else {
    io.stderr(`bridge-ca: ${result.text.join(' ')}\n`);
  }
}

function parseCommandLine(command: Command, args: string[], io: CliIo, json: boolean) {
  if (args.some((a) => a === '--passphrase' || a.startsWith('--passphrase='))) {
    throw new CliError(
      EXIT.usage,
      '--passphrase is not accepted: passphrases never go on the command line; use --passphrase-file or BRIDGE_CA_PASSPHRASE',
    );
  }
  const options: ParseArgsConfig['options'] = { json: { type: 'boolean' } };
  for (const [key, spec] of Object.entries(command.options)) {
    options[key] = spec.multiple ? { type: spec.type, multiple: true } : { type: spec.type };
  }
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CliError(EXIT.usage, `${command.name}: ${message}`);
  }
  const { min = 0, max = 0 } = command.positionals ?? {};
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    throw new CliError(
      EXIT.usage,
      max === 0
        ? `${command.name}: unexpected argument "${parsed.positionals[0]}"`
        : `usage: ${command.usage}`,
    );
  }
  for (const [key, spec] of Object.entries(command.options)) {
    const value = parsed.values[key];
    if (spec.required && (value === undefined || (Array.isArray(value) && value.length === 0))) {
      throw new CliError(EXIT.usage, `${command.name}: --${key} is required`);
    }
  }
  return {
    io,
    values: parsed.values,
    positionals: parsed.positionals,
    json,
    path: (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p)),
  };
}

function describeError(error: unknown): { exitCode: number; message: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  if (error instanceof PkiError)
    return { exitCode: PKI_ERROR_EXIT[error.code], message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: EXIT.internal, message: `internal error: ${message.split('\n')[0]}` };
}

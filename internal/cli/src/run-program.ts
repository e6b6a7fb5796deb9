import { isAbsolute, resolve } from 'node:path';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { isOutputClosed, outputClosed } from './closed-output.js';
import type { Command, CommandResult } from './command.js';
import { completionCommand } from './completion.js';
import { commandHelp, groupHelp, mainHelp } from './help.js';
import { parseCommandLine } from './parse-command-line.js';
import { groupOf, type Program } from './program.js';

const isHelp = (a: string) => a === '--help' || a === '-h';

/** Runs one invocation of `program` and returns its exit status. */
export async function runProgram<Io extends CliIo>(
  program: Program<Io>,
  argv: readonly string[],
  io: Io,
): Promise<number> {
  const commands: readonly Command<Io>[] = [...program.commands, completionCommand(program)];
  const json = argv.includes('--json');
  // From here on, a reader that goes away (`| head`) ends the program quietly.
  const closed = outputClosed();
  try {
    if (argv.length === 0 || argv[0] === 'help' || (argv[0] !== undefined && isHelp(argv[0]))) {
      io.stdout(mainHelp(program, commands));
      return argv.length === 0 ? program.exit.usage : program.exit.ok;
    }
    const { command, rest } = findCommand(program, commands, argv, io);
    if (!command) return program.exit.ok;
    if (rest.some(isHelp)) {
      io.stdout(commandHelp(program, command));
      return program.exit.ok;
    }
    program.precheck?.(rest);
    const { values, positionals } = parseCommandLine(program, command, rest);
    const result = await command.run({
      io,
      values,
      positionals,
      json,
      path: (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p)),
    });
    const exitCode = result.exitCode ?? program.exit.ok;
    report(program, io, result, json, exitCode);
    return exitCode;
  } catch (error) {
    // What a closed output stopped is no failure: the reader had what it wanted.
    if (closed.aborted && isOutputClosed(error)) return program.exit.ok;
    const { exitCode, message } = program.describeError?.(error) ?? describeError(program, error);
    io.stderr(
      json
        ? `${JSON.stringify({ ok: false, exitCode, error: message })}\n`
        : `${program.name}: ${message}\n`,
    );
    return exitCode;
  }
}

/**
 * The command the leading words name, and the arguments left for it.
 * Global options may come before the words; a group named alone prints its
 * help (and returns no command).
 */
function findCommand<Io extends CliIo>(
  program: Program<Io>,
  commands: readonly Command<Io>[],
  argv: readonly string[],
  io: CliIo,
): { command: Command<Io> | undefined; rest: string[] } {
  const globals = program.globalOptions?.options ?? {};
  const wordAt: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith('-')) {
      if (wordAt.length > 0) break;
      const spec = globals[arg.replace(/^--?/, '')];
      if (spec?.type === 'string' && !arg.includes('=')) i++;
      continue;
    }
    wordAt.push(i);
    const name = wordAt.map((w) => argv[w]).join(' ');
    if (!commands.some((c) => c.name.startsWith(`${name} `))) break;
  }
  const words = wordAt.map((w) => argv[w] as string);
  const rest = argv.filter((_, i) => !wordAt.includes(i));
  if (words.length === 0) {
    if (rest.some(isHelp)) {
      io.stdout(mainHelp(program, commands));
      return { command: undefined, rest };
    }
    throw new CliError(program.exit.usage, `missing command; see ${program.name} --help`);
  }
  const name = words.join(' ');
  const command = commands.find((c) => c.name === name);
  if (command) return { command, rest };
  const group = words[0] as string;
  const members = commands.filter((c) => c.name.includes(' ') && groupOf(c) === group);
  if (members.length > 0 && words.length === 1) {
    io.stdout(groupHelp(program, group, members));
    if (rest.some(isHelp)) return { command: undefined, rest };
    throw new CliError(
      program.exit.usage,
      `${group}: missing command (${members.map((c) => c.name.split(' ')[1]).join(', ')})`,
    );
  }
  throw new CliError(program.exit.usage, `unknown command "${name}"; see ${program.name} --help`);
}

function report(
  program: Program<never>,
  io: CliIo,
  result: CommandResult,
  json: boolean,
  exitCode: number,
): void {
  if (json) {
    if (result.json !== undefined) io.stdout(`${JSON.stringify(result.json, null, 2)}\n`);
  } else if (result.text === undefined) {
    // The command printed as it went.
  } else if (exitCode === program.exit.ok) {
    io.stdout(`${result.text.join('\n')}\n`);
  } else {
    io.stderr(`${program.name}: ${result.text.join(' ')}\n`);
  }
}

function describeError(program: Program<never>, error: unknown) {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: program.exit.internal, message: `internal error: ${message.split('\n')[0]}` };
}

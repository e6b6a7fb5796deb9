import type { CliIo } from './cli-io.js';
import type { Command, OptionSpec } from './command.js';

/** A CLI: its commands and what its help says around them. */
export interface Program<Io extends CliIo = CliIo> {
  /** The executable's name, which prefixes every message. */
  name: string;
  /** The first line of the main help: what the tool is. */
  intro: string;
  /** In the order the main help lists them; `completion` is added to them. */
  commands: readonly Command<Io>[];
  /** Options every command takes, listed in each command's help under their own heading. */
  globalOptions?: { title: string; options: Record<string, OptionSpec> };
  /** Main help paragraphs between the command list and the exit statuses. */
  notes: string[];
  /** Main help lines after the exit statuses. */
  footer?: string[];
  /** The documented exit statuses, one help line each. */
  exitLines: string[];
  exit: { ok: number; usage: number; internal: number };
  /**
   * How to run the program from the checkout it runs from, when it is not
   * installed (argv, e.g. `node <root>/scripts/run.mjs <entry>`): its
   * completion scripts then also define a shell function of the program's
   * name that runs it, unless the shell has a command of that name, so
   * completion has a command to complete.
   */
  sourceCommand?: readonly string[];
  /** Looks at the raw arguments of a command before parsing; throws a CliError to refuse them. */
  precheck?: (args: readonly string[]) => void;
  /** Status and message of a failure the program knows; undefined for anything else (a bug). */
  describeError?: (error: unknown) => { exitCode: number; message: string } | undefined;
}

/** Every option a command accepts: its own, the program's global ones (unless not its), --json and --help. */
export function allOptions(
  program: Program<never>,
  command: Command<never>,
): Record<string, OptionSpec> {
  return {
    ...command.options,
    ...(command.ownOptionsOnly ? {} : program.globalOptions?.options),
    json: { type: 'boolean', description: 'print the result as JSON' },
    help: { type: 'boolean', description: 'show this help' },
  };
}

/** The groups of multi-word commands ("sessions" of "sessions start"), in order of appearance. */
export function groupsOf(commands: readonly Command<never>[]): string[] {
  return [...new Set(commands.flatMap((c) => (c.name.includes(' ') ? [groupOf(c)] : [])))];
}

export const groupOf = (command: Command<never>): string => command.name.split(' ')[0] ?? '';

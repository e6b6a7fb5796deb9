import type { CliIo } from './cli-io.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** Shown in help, e.g. FILE; FILE, DIR and PREFIX values complete as paths. */
  value?: string;
  description: string;
  required?: boolean;
  /** The values shell completion offers. */
  choices?: readonly string[];
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext<Io extends CliIo = CliIo> {
  io: Io;
  values: OptionValues;
  positionals: string[];
  json: boolean;
  /** Resolves a path from the command line against the working directory. */
  path: (p: string) => string;
}

/**
 * What a command reports: lines for people, a value for --json. A command
 * that printed as it went (a stream) leaves both out.
 */
export interface CommandResult {
  text?: string[];
  json?: unknown;
  exitCode?: number;
}

export interface Command<Io extends CliIo = CliIo> {
  /** One word, or a group and a word ("sessions start"). */
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Extra help paragraphs. */
  notes?: string[];
  positionals?: { min: number; max: number };
  /**
   * The program's global options are not about this command (`completion`
   * connects to nothing): it takes only its own, and its help does not
   * point at the others.
   */
  ownOptionsOnly?: boolean;
  run: (ctx: CommandContext<Io>) => Promise<CommandResult>;
}

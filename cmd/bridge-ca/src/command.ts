import type { CliIo } from './cli-io.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** Shown in help, e.g. FILE. */
  value?: string;
  description: string;
  required?: boolean;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  io: CliIo;
  values: OptionValues;
  positionals: string[];
  json: boolean;
  /** Resolves a path from the command line against the working directory. */
  path: (p: string) => string;
}

/** What a command reports: lines for people, an object for --json. */
export interface CommandResult {
  text: string[];
  json: Record<string, unknown>;
  exitCode?: number;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Extra help paragraphs. */
  notes?: string[];
  positionals?: { min: number; max: number };
  run: (ctx: CommandContext) => Promise<CommandResult>;
}

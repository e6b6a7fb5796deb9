import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';
import type { Command, OptionSpec, OptionValues } from './command.js';
import { allOptions, type Program } from './program.js';

/** The options and positionals of one command's arguments. */
export interface ParsedLine {
  values: OptionValues;
  positionals: string[];
}

/**
 * Parses a command's arguments with parseArgs, but judges them here, so
 * each mistake reads as one sentence naming the option and the command's
 * help (parseArgs's own texts explain its parser: "… as in '-- \"--bogus\"'",
 * "argument is ambiguous"). An option's value may start with "-"
 * (`--after -5`), unless it is one of the command's options (`--repo
 * --json`: the value was forgotten).
 */
export function parseCommandLine(
  program: Program<never>,
  command: Command<never>,
  args: readonly string[],
): ParsedLine {
  const { help: _help, ...specs } = allOptions(program, command);
  const usage = (message: string) =>
    new CliError(
      program.exit.usage,
      `${command.name}: ${message}; see ${program.name} ${command.name} --help`,
    );
  /** An option of the command: what follows an option that wants a value must not be one. */
  const isOption = (arg: string) =>
    arg === '-h' ||
    arg === '--help' ||
    (arg.startsWith('--') && Object.hasOwn(specs, arg.slice(2).split('=')[0] as string));

  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [name, { type: spec.type }]),
    ),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const values: OptionValues = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
    if (!spec || !token.rawName.startsWith('--')) {
      // Worded as parseArgs words it, which scripts may already match.
      throw usage(`Unknown option '${token.rawName}'${suggestion(token.rawName, specs)}`);
    }
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw usage(`${token.rawName} takes no value`);
      values[token.name] = true;
      continue;
    }
    const value = token.value;
    if (value === undefined || (!token.inlineValue && isOption(value))) {
      throw usage(`${token.rawName} wants a value${spec.value ? ` (${spec.value})` : ''}`);
    }
    const chosen = choose(spec, value);
    if (chosen === undefined) {
      throw new CliError(
        program.exit.usage,
        `${command.name}: ${token.rawName} must be one of ${spec.choices?.join(', ')} (in any case), not "${value}"`,
      );
    }
    if (spec.multiple) values[token.name] = [...((values[token.name] as string[]) ?? []), chosen];
    else values[token.name] = chosen;
  }
  const { min = 0, max = 0 } = command.positionals ?? {};
  if (positionals.length < min || positionals.length > max) {
    throw new CliError(
      program.exit.usage,
      max === 0
        ? `${command.name}: unexpected argument "${positionals[0]}"`
        : `usage: ${command.usage}`,
    );
  }
  for (const [key, spec] of Object.entries(specs)) {
    const value = values[key];
    if (spec.required && (value === undefined || (Array.isArray(value) && value.length === 0))) {
      throw new CliError(program.exit.usage, `${command.name}: --${key} is required`);
    }
  }
  return { values, positionals };
}

/**
 * `value` as the choice it names, in any case (`--status running` is
 * RUNNING); undefined when it names none. Without choices, `value` itself.
 */
function choose(spec: OptionSpec, value: string): string | undefined {
  if (!spec.choices) return value;
  return (
    spec.choices.find((c) => c === value) ??
    spec.choices.find((c) => c.toLowerCase() === value.toLowerCase())
  );
}

/** ", did you mean --provider?" for an option within a typo of one the command has. */
function suggestion(raw: string, specs: Record<string, OptionSpec>): string {
  const typed = raw.replace(/^-+/, '');
  const close = Object.keys(specs)
    .map((name) => ({ name, d: distance(typed, name) }))
    .filter(
      ({ name, d }) => d <= Math.min(2, Math.floor(name.length / 3)) || name.startsWith(typed),
    )
    .sort((a, b) => a.d - b.d)[0];
  return close ? `, did you mean --${close.name}?` : '';
}

/** The Levenshtein distance of two short words. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] as number;
}

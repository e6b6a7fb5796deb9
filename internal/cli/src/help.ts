import type { CliIo } from './cli-io.js';
import type { Command, OptionSpec } from './command.js';
import type { Program } from './program.js';

const table = (rows: { left: string; right: string }[]): string[] => {
  const width = Math.max(...rows.map((r) => r.left.length));
  return rows.map((r) => `  ${r.left.padEnd(width)}  ${r.right}`);
};

const commandRows = (commands: readonly Command<never>[]) =>
  table(commands.map((c) => ({ left: c.name, right: c.summary })));

export function mainHelp<Io extends CliIo>(
  program: Program<Io>,
  commands: readonly Command<Io>[],
): string {
  const { name } = program;
  const global = program.globalOptions;
  return [
    program.intro,
    '',
    `usage: ${name} <command> [options]     ${name} <command> --help`,
    '',
    'commands:',
    ...commandRows(commands),
    '',
    // Listed here once: every command takes them, so its own help only points here.
    ...(global ? [`${global.title}:`, ...table(optionRows(global.options)), ''] : []),
    ...program.notes,
    '',
    'exit status:',
    ...program.exitLines,
    ...(program.footer?.length ? ['', ...program.footer] : []),
    '',
  ].join('\n');
}

/** What `<name> <group> --help` shows: the group's commands. */
export function groupHelp<Io extends CliIo>(
  program: Program<Io>,
  group: string,
  commands: readonly Command<Io>[],
): string {
  return [
    `${program.name} ${group}: commands`,
    '',
    ...commandRows(commands),
    '',
    `${program.name} ${group} <command> --help shows each one.`,
    '',
  ].join('\n');
}

function optionRows(options: Record<string, OptionSpec>) {
  return Object.entries(options).map(([name, spec]) => {
    const left = `--${name}${spec.value ? ` ${spec.value}` : ''}`;
    const tags = [spec.required ? 'required' : '', spec.multiple ? 'repeatable' : '']
      .filter(Boolean)
      .join(', ');
    return { left, right: `${spec.description}${tags ? ` [${tags}]` : ''}` };
  });
}

/** "--a, --b, …": the first two of a list of options. */
const optionList = (names: string[]) =>
  `${names
    .slice(0, 2)
    .map((o) => `--${o}`)
    .join(', ')}${names.length > 2 ? ', …' : ''}`;

/**
 * A command's help: its usage, its own options and notes, and one line
 * saying where the options every command takes and the exit statuses are
 * (the main help), instead of repeating them for each command.
 */
export function commandHelp<Io extends CliIo>(program: Program<Io>, command: Command<Io>): string {
  const own = optionRows(command.options);
  own.push({ left: '--json', right: 'print the result as JSON' });
  own.push({ left: '--help', right: 'show this help' });
  const global = command.ownOptionsOnly ? undefined : program.globalOptions;
  const shared = global
    ? `the ${global.title.replace(/ \(.*$/, '')} options (${optionList(Object.keys(global.options))}) and the exit statuses`
    : 'the exit statuses';
  return [
    `${program.name} ${command.name}: ${command.summary}`,
    '',
    `usage: ${command.usage}`,
    '',
    'options:',
    ...table(own),
    ...(command.notes?.length ? ['', ...command.notes] : []),
    '',
    `${program.name} --help lists ${shared}.`,
    '',
  ].join('\n');
}

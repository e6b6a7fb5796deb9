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
  return [
    program.intro,
    '',
    `usage: ${name} <command> [options]     ${name} <command> --help`,
    '',
    'commands:',
    ...commandRows(commands),
    '',
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

export function commandHelp<Io extends CliIo>(program: Program<Io>, command: Command<Io>): string {
  const own = optionRows(command.options);
  own.push({ left: '--json', right: 'print the result as JSON' });
  own.push({ left: '--help', right: 'show this help' });
  const global = program.globalOptions;
  const globalRows = global ? optionRows(global.options) : [];
  // One width for both tables, so the help reads as one list.
  const rows = table([...own, ...globalRows]);
  return [
    `${program.name} ${command.name}: ${command.summary}`,
    '',
    `usage: ${command.usage}`,
    '',
    'options:',
    ...rows.slice(0, own.length),
    ...(global ? ['', `${global.title}:`, ...rows.slice(own.length)] : []),
    ...(command.notes?.length ? ['', ...command.notes] : []),
    '',
    'exit status:',
    ...program.exitLines,
    '',
  ].join('\n');
}

import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import type { Command } from './command.js';
import type { Program } from './program.js';
import { runProgram } from './run-program.js';

const ran: { name: string; values: unknown; positionals: string[] }[] = [];
const cmd = (name: string, extra: Partial<Command> = {}): Command => ({
  name,
  summary: `the ${name} command`,
  usage: `tool ${name}`,
  options: { level: { type: 'string', value: 'N', description: 'a level', choices: ['1', '2'] } },
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    ran.push({ name, values: ctx.values, positionals: ctx.positionals });
    return { text: [`did ${name}`], json: { name } };
  },
  ...extra,
});

const PROGRAM: Program = {
  name: 'tool',
  intro: 'tool: a test program',
  commands: [cmd('ping'), cmd('things add'), cmd('things drop')],
  globalOptions: {
    title: 'global',
    options: { where: { type: 'string', value: 'FILE', description: 'somewhere' } },
  },
  notes: ['a note'],
  exitLines: ['  0 ok'],
  exit: { ok: 0, usage: 2, internal: 70 },
  describeError: (e) => (e instanceof RangeError ? { exitCode: 9, message: 'range' } : undefined),
};

async function invoke(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runProgram(PROGRAM, argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    cwd: '/',
    now: () => new Date(0),
  });
  return { code, stdout, stderr };
}

describe('runProgram', () => {
  it('finds a grouped command after global options and passes options and positionals', async () => {
    ran.length = 0;
    const r = await invoke(['--where', 'x', 'things', 'add', 'item', '--level', '2']);
    expect(r).toEqual({ code: 0, stdout: 'did things add\n', stderr: '' });
    expect(ran[0]).toMatchObject({
      name: 'things add',
      values: { where: 'x', level: '2' },
      positionals: ['item'],
    });
  });

  it('refuses bad input with the usage status and one line', async () => {
    expect(await invoke(['things'])).toMatchObject({
      code: 2,
      stderr: 'tool: things: missing command (add, drop)\n',
    });
    expect(await invoke(['nope'])).toMatchObject({
      code: 2,
      stderr: 'tool: unknown command "nope"; see tool --help\n',
    });
    expect(await invoke(['ping', '--level', '3'])).toMatchObject({
      code: 2,
      stderr: 'tool: ping: --level must be one of 1, 2, not "3"\n',
    });
    expect(await invoke(['ping', 'a', 'b'])).toMatchObject({
      code: 2,
      stderr: 'tool: usage: tool ping\n',
    });
    const json = await invoke(['ping', '--json', '--bogus']);
    expect(JSON.parse(json.stderr)).toMatchObject({ ok: false, exitCode: 2 });
    expect(JSON.parse(json.stderr).error).toMatch(/^ping: Unknown option '--bogus'/);
  });

  it('maps errors through the program, and anything else to an internal error', async () => {
    const failing = (error: Error) => ({
      ...PROGRAM,
      commands: [cmd('ping', { run: () => Promise.reject(error) })],
    });
    const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: '/', now: () => new Date(0) };
    expect(await runProgram(failing(new RangeError('x')), ['ping'], io)).toBe(9);
    expect(await runProgram(failing(new CliError(4, 'four')), ['ping'], io)).toBe(4);
    expect(await runProgram(failing(new Error('bug')), ['ping'], io)).toBe(70);
  });

  it('prints main, group and command help with the global options', async () => {
    const main = await invoke(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/^ {2}things add +the things add command$/m);
    expect(main.stdout).toMatch(/^ {2}completion /m);
    expect((await invoke(['things', '--help'])).stdout).toContain('tool things: commands');
    const help = (await invoke(['things', 'drop', '--help'])).stdout;
    expect(help).toContain('usage: tool things drop');
    expect(help).toMatch(/global:\n {2}--where FILE +somewhere/);
    expect((await invoke([])).code).toBe(2);
  });

  it('writes fish and zsh completion from the same definitions', async () => {
    const fish = (await invoke(['completion', 'fish'])).stdout;
    expect(fish).toContain(
      "complete -c tool -n '__fish_seen_subcommand_from things; and not __fish_seen_subcommand_from add drop' -a add",
    );
    expect(fish).toContain(
      "complete -c tool -n '__fish_seen_subcommand_from ping' -l where -r -F -d 'somewhere'",
    );
    expect((await invoke(['completion', 'zsh'])).stdout).toMatch(
      /^autoload -U \+X bashcompinit && bashcompinit\n/,
    );
    expect(await invoke(['completion', 'tcsh'])).toMatchObject({
      code: 2,
      stderr: 'tool: completion: unknown shell "tcsh" (bash, zsh or fish)\n',
    });
  });
});

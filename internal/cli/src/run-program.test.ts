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
  options: {
    level: { type: 'string', value: 'N', description: 'a level', choices: ['1', '2'] },
    status: {
      type: 'string',
      value: 'S',
      description: 'statuses',
      multiple: true,
      choices: ['RUNNING', 'STOPPED'],
    },
    after: { type: 'string', value: 'SEQ', description: 'a seq' },
    quick: { type: 'boolean', description: 'quickly' },
  },
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
      stderr: 'tool: ping: --level must be one of 1, 2 (in any case), not "3"\n',
    });
    expect(await invoke(['ping', 'a', 'b'])).toMatchObject({
      code: 2,
      stderr: 'tool: usage: tool ping\n',
    });
    const json = await invoke(['ping', '--json', '--bogus']);
    expect(JSON.parse(json.stderr)).toMatchObject({ ok: false, exitCode: 2 });
    expect(JSON.parse(json.stderr).error).toMatch(/^ping: Unknown option '--bogus'/);
  });

  it('says what is wrong with an option in a sentence of its own, not parseArgs text', async () => {
    const said = async (argv: string[]) => (await invoke(argv)).stderr;
    expect(await said(['ping', '--bogus'])).toBe(
      "tool: ping: Unknown option '--bogus'; see tool ping --help\n",
    );
    expect(await said(['ping', '--leve', '1'])).toBe(
      "tool: ping: Unknown option '--leve', did you mean --level?; see tool ping --help\n",
    );
    expect(await said(['ping', '-x'])).toBe(
      "tool: ping: Unknown option '-x'; see tool ping --help\n",
    );
    expect(await said(['ping', '--after'])).toBe(
      'tool: ping: --after wants a value (SEQ); see tool ping --help\n',
    );
    // The value forgotten before another option: that option is not taken as the value.
    expect(await said(['ping', '--after', '--quick'])).toBe(
      'tool: ping: --after wants a value (SEQ); see tool ping --help\n',
    );
    expect(await said(['ping', '--quick=yes'])).toBe(
      'tool: ping: --quick takes no value; see tool ping --help\n',
    );
    for (const text of [await said(['ping', '--bogus']), await said(['ping', '--after'])]) {
      expect(text).not.toMatch(/ambiguous|as in '--|argument missing|\n./);
    }
  });

  it('takes a value that starts with "-" as the value, for the command to judge', async () => {
    ran.length = 0;
    expect(await invoke(['ping', '--after', '-5'])).toMatchObject({ code: 0, stderr: '' });
    expect(ran[0]?.values).toMatchObject({ after: '-5' });
    expect(await invoke(['ping', '--after=-x'])).toMatchObject({ code: 0 });
    expect(ran[1]?.values).toMatchObject({ after: '-x' });
  });

  it('matches choices in any case, each value of a repeated option too', async () => {
    ran.length = 0;
    const r = await invoke(['ping', '--status', 'running', '--status', 'Stopped']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(ran[0]?.values).toMatchObject({ status: ['RUNNING', 'STOPPED'] });
    expect(await invoke(['ping', '--status', 'gone'])).toMatchObject({
      code: 2,
      stderr: 'tool: ping: --status must be one of RUNNING, STOPPED (in any case), not "gone"\n',
    });
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
    // The options every command takes, and the exit statuses, are in the main help alone.
    expect(main.stdout).toMatch(/global:\n {2}--where FILE +somewhere\n/);
    expect(main.stdout).toMatch(/exit status:\n {2}0 ok/);
    expect((await invoke(['things', '--help'])).stdout).toContain('tool things: commands');
    for (const [argv, pointer] of [
      [['things', 'drop', '--help'], 'the global options (--where) and the exit statuses'],
      // completion takes none of the global options: its help does not point at them.
      [['completion', '--help'], 'the exit statuses'],
    ] as const) {
      const help = (await invoke([...argv])).stdout;
      expect(help).toContain(`usage: tool ${argv.slice(0, -1).join(' ')}`);
      expect(help).not.toMatch(/somewhere|exit status:|0 ok/);
      expect(help).toContain(`\ntool --help lists ${pointer}.\n`);
    }
    expect(await invoke(['completion', 'bash', '--where', 'x'])).toMatchObject({
      code: 2,
      stderr: "tool: completion: Unknown option '--where'; see tool completion --help\n",
    });
    expect((await invoke(['ping', '--help'])).stdout).toMatch(/^ {2}--level N +a level$/m);
    expect((await invoke([])).code).toBe(2);
  });

  it('defines a function that runs the program from its checkout, unless the shell has one', async () => {
    const fromSource = { ...PROGRAM, sourceCommand: ['node', "/it's/run.mjs", 'main.ts'] };
    const io = { stdout: (t: string) => out.push(t), stderr: () => {}, env: {}, cwd: '/' };
    const out: string[] = [];
    await runProgram(fromSource, ['completion', 'bash'], { ...io, now: () => new Date(0) });
    expect(out.join('')).toContain(
      `if ! command -v tool >/dev/null 2>&1; then\n  function tool { 'node' '/it'\\''s/run.mjs' 'main.ts' "$@"; }\nfi\n`,
    );
    expect(out.join('')).toMatch(/\ncomplete -F _tool_complete tool\n$/);
    out.length = 0;
    await runProgram(fromSource, ['completion', 'fish'], { ...io, now: () => new Date(0) });
    expect(out.join('')).toContain(
      "if not type -q tool\n  function tool; 'node' '/it\\'s/run.mjs' 'main.ts' $argv; end\nend\n",
    );
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
    // Only a program run from a checkout defines a function to run it.
    expect((await invoke(['completion', 'bash'])).stdout).not.toContain('function tool');
    expect(await invoke(['completion', 'tcsh'])).toMatchObject({
      code: 2,
      stderr: 'tool: completion: unknown shell "tcsh" (bash, zsh or fish)\n',
    });
  });
});

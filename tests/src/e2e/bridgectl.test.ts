// bridgectl as a user runs it: a real child process against a real daemon
// over mTLS, its settings from a profile file in a temp dir.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  captureOutput,
  claudeOfVersion,
  createTestPki,
  REPO_ROOT,
  startDaemon,
  startTcpProxy,
  type TestDaemon,
  type TestPki,
  waitFor,
  within,
  writeCtlProfile,
} from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let pki: TestPki;
let daemon: TestDaemon;
let dir: string;
let profiles: string;

const ENTRY = (name: string) => [
  '--conditions=development',
  '--import',
  'tsx',
  join(REPO_ROOT, name),
];

/** The environment of every run: only the temp profile file, no BRIDGECTL_* of the caller. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(out))
    if (k.startsWith('BRIDGECTL_') || k === 'INIT_CWD') delete out[k];
  return { ...out, BRIDGECTL_PROFILES: profiles, ...extra };
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  entry: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...ENTRY(entry), ...args],
      { cwd: REPO_ROOT, env: env(extraEnv), timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error?.killed) reject(new Error(`${args.join(' ')} did not finish: ${stderr}`));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

const ctl = (args: string[], extraEnv?: Record<string, string>) =>
  run('cmd/bridgectl/src/main.ts', args, extraEnv);

/** `bridgectl events … --follow --json` as a child, with its output collected. */
function follow(args: string[]) {
  const proc = spawn(process.execPath, [...ENTRY('cmd/bridgectl/src/main.ts'), ...args], {
    cwd: REPO_ROOT,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { proc, output: captureOutput(proc), exited: once(proc, 'exit') as Promise<[number]> };
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { seq: number; type: string });

function expectOneLine(r: Result, code: number, pattern: RegExp): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code, stdout: '' });
  expect(r.stderr).toMatch(/^bridgectl: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
}

const kill = async (p: ChildProcess, exited: Promise<unknown>) => {
  if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await exited;
};

beforeAll(async () => {
  pki = await createTestPki();
  dir = mkdtempSync(join(tmpdir(), 'bridgectl-'));
  daemon = await startDaemon({
    pki,
    config: {
      providers: {
        // The mock asks permission for each "/tool" line and waits for the answer.
        mock_ask: { adapter: 'mock', permissions: 'ask', permission_timeout: '5m' },
        // A claude newer than the contract tests cover.
        claude_next: { adapter: 'claude', binary: claudeOfVersion(dir, '2.1.400') },
      },
    },
  });
  profiles = writeCtlProfile(dir, daemon.port, pki);
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('bridgectl', () => {
  it('health and providers with the default profile, as text and --json', async () => {
    const health = await ctl(['health']);
    expect(health.stderr).toBe('');
    expect(health.code).toBe(0);
    expect(health.stdout).toMatch(
      /^serving {2}version \S+ {2}instance \S+ .*\nhistory [0-9a-f-]{36}\n/,
    );
    expect(JSON.parse((await ctl(['health', '--json'])).stdout)).toMatchObject({
      status: 'serving',
    });
    const providers = await ctl(['providers', '--json']);
    expect(JSON.parse(providers.stdout).map((p: { id: string }) => p.id)).toContain('mock');
  });

  it('providers and health show the tested range and warn of a version outside it', async () => {
    let listed = '';
    await waitFor('claude_next --version to be probed', async () => {
      listed = (await ctl(['providers'])).stdout;
      return listed.includes('2.1.400');
    });
    const warning =
      'warning: claude-code 2.1.400 is newer than the versions the contract tests cover (2.1.197 to 2.1.332); it is served, but the adapter has not been proven against it';
    const lines = listed.split('\n');
    const at = lines.findIndex((l) => l.startsWith('claude_next '));
    expect(lines[at]).toMatch(
      /^claude_next {2}available {2}2\.1\.400 \(tested 2\.1\.197 to 2\.1\.332\) {2}auth /,
    );
    expect(lines[at + 1]?.trim()).toBe(warning);
    const health = await ctl(['health']);
    expect(health.code).toBe(0);
    expect(health.stdout).toContain(`  claude_next  available`);
    expect(health.stdout.split('\n').map((l) => l.trim())).toContain(warning);
  });

  it('sessions start, send, get, list and stop while events --follow --json streams them', async () => {
    const start = await ctl(['sessions', 'start', '--provider', 'mock', '--repo', daemon.repo]);
    expect(start.code).toBe(0);
    const id = start.stdout.trim();
    const events = follow(['events', id, '--follow', '--json']);
    try {
      await events.output.waitFor('SESSION_STARTED', /"SESSION_STARTED"/);
      for (const text of ['first turn', 'second turn']) {
        expect((await ctl(['sessions', 'send', id, text])).stdout).toMatch(/^sent: seq \d+\n$/);
      }
      await events.output.waitFor('two turns', /TURN_COMPLETED[\s\S]*TURN_COMPLETED/);
      const got = JSON.parse((await ctl(['sessions', 'get', id, '--json'])).stdout);
      expect(got).toMatchObject({ sessionId: id, status: 'RUNNING', repoPath: daemon.repo });
      expect((await ctl(['sessions', 'list', '--status', 'RUNNING'])).stdout).toContain(id);
      // Any case names the status.
      const running = await ctl(['sessions', 'list', '--status', 'running', '--status', 'Stopped']);
      expect(running).toMatchObject({ code: 0, stderr: '' });
      expect(running.stdout).toContain(id);
      expect((await ctl(['sessions', 'stop', id])).code).toBe(0);
      const [code] = await within('events --follow to end with the session', events.exited, 20_000);
      expect(code).toBe(0);
      const seen = lines(events.output.text());
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
      expect(seen.at(-1)?.type).toBe('SESSION_STOPPED');
      expect(seen.filter((e) => e.type === 'INPUT_RECEIVED')).toHaveLength(2);
    } finally {
      await kill(events.proc, events.exited);
    }
  });

  it('sessions start --name --role: shown by get and list; a name in use exits with the reason', async () => {
    const startNamed = (...more: string[]) =>
      ctl([
        'sessions',
        'start',
        '--provider',
        'mock',
        '--repo',
        daemon.repo,
        '--name',
        'ctl-lead',
        ...more,
      ]);
    const start = await startNamed('--role', 'lead');
    expect(start).toMatchObject({ code: 0, stderr: '' });
    const id = start.stdout.trim();
    try {
      expect((await ctl(['sessions', 'get', id])).stdout).toContain(
        'name      ctl-lead (role lead)\n',
      );
      expect((await ctl(['sessions', 'list'])).stdout).toMatch(
        new RegExp(`${id} .* ctl-lead \\(lead\\)\n`),
      );
      const again = await startNamed();
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain(`the name "ctl-lead" is held by live session ${id}`);
    } finally {
      await ctl(['sessions', 'stop', id]);
    }
  });

  it('context post, read and ack, messages send and list: the collaboration commands', async () => {
    const posted = await ctl([
      'context',
      'post',
      'finding',
      'flaky test in ci',
      '--priority',
      'high',
      '--meta',
      'file=a.ts',
      '--json',
    ]);
    expect(posted).toMatchObject({ code: 0, stderr: '' });
    const post = JSON.parse(posted.stdout) as { id: number; from: { id: string } };
    const read = await ctl(['context', 'read', '--unacked']);
    expect(read.stdout).toMatch(
      new RegExp(`#${post.id} \\S+ ${post.from.id} finding/high: flaky test in ci\n`),
    );
    expect(read.stdout).toMatch(/\ncursor \d+\n$/);
    expect((await ctl(['context', 'ack', String(post.id)])).stdout).toBe('acked: 1 new\n');
    expect((await ctl(['context', 'read', '--unacked'])).stdout).not.toContain('flaky test in ci');
    const bad = await ctl(['context', 'post', 'finding', 'x', '--reply-to', 'first']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--reply-to wants a number');
    const sent = await ctl(['messages', 'send', '--person', post.from.id, 'note to self']);
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    expect((await ctl(['messages', 'list', '--unread'])).stdout).toMatch(/note to self\n/);
    expect((await ctl(['messages', 'list', '--unread'])).stdout).toBe('no messages\n');
    const nobody = await ctl(['messages', 'send', 'hello?']);
    expect(nobody.stderr).toContain('give exactly one of --to, --role, --person, --reply-to');
    const ghost = await ctl(['messages', 'send', '--to', 'ghost', 'hello?']);
    expect(ghost.code).not.toBe(0);
    expect(ghost.stderr).toContain('no live session "ghost" in this project');
  });

  it('events --follow resumes after the connection drops, without a gap or a repeat', async () => {
    const proxy = await startTcpProxy(daemon.port);
    const id = (
      await ctl(['sessions', 'start', '--provider', 'mock', '--repo', daemon.repo])
    ).stdout.trim();
    // The flag wins over the profile's address.
    const events = follow(['events', id, '--follow', '--json', '--address', proxy.target]);
    try {
      await events.output.waitFor('SESSION_STARTED', /"SESSION_STARTED"/);
      expect(proxy.cutAll()).toBeGreaterThan(0);
      await ctl(['sessions', 'send', id, 'after the cut']);
      await events.output.waitFor('the turn after the cut', /TURN_COMPLETED/);
      await ctl(['sessions', 'stop', id]);
      const [code] = await within('events --follow to end', events.exited, 20_000);
      expect(code).toBe(0);
      const seqs = lines(events.output.text()).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(proxy.accepted).toBeGreaterThan(1);
    } finally {
      await kill(events.proc, events.exited);
      await proxy.close();
    }
  });

  it('events without --follow prints what is held and ends; rendering is readable text', async () => {
    const id = (
      await ctl(['sessions', 'start', '--provider', 'mock', '--repo', daemon.repo])
    ).stdout.trim();
    await ctl(['sessions', 'send', id, 'hello']);
    await ctl(['sessions', 'stop', id]);
    const r = await ctl(['events', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('> hello');
    expect(r.stdout).toMatch(/mock\[1\]: received "hello"/);
    expect(r.stdout).toMatch(/── turn done · 5 in \/ \d+ out tokens/);
    expect(r.stdout).toContain('■ session stopped');
    expect(r.stdout).not.toContain('\x1b['); // not a terminal: no colour
  });

  it("refuses a bad flag with exit 2 and one line of its own, not the parser's", async () => {
    const [bogus, typo, frob, soon, negative, forgotten] = await Promise.all([
      ctl(['health', '--bogus']),
      ctl(['sessions', 'start', '--provder', 'mock']),
      ctl(['sessions', 'frob']),
      ctl(['events', 'x', '--after', 'soon']),
      ctl(['events', 'x', '--after', '-5']),
      ctl(['sessions', 'start', '--repo', '--provider', 'mock']),
    ]);
    expectOneLine(
      bogus,
      2,
      /^bridgectl: health: Unknown option '--bogus'; see bridgectl health --help\n$/,
    );
    expectOneLine(typo, 2, /Unknown option '--provder', did you mean --provider\?/);
    expectOneLine(frob, 2, /unknown command "sessions frob"/);
    expectOneLine(soon, 2, /--after wants a seq/);
    // A value that starts with "-" reaches the command, which says what it wants.
    expectOneLine(
      negative,
      2,
      /^bridgectl: events: --after wants a seq \(0, 1, 2, …\), not "-5"\n$/,
    );
    expectOneLine(
      forgotten,
      2,
      /^bridgectl: sessions start: --repo wants a value \(PATH\); see bridgectl sessions start --help\n$/,
    );
    for (const r of [bogus, negative, forgotten]) {
      expect(r.stderr).not.toMatch(/ambiguous|as in '--|To specify|argument missing/);
    }
  });

  it('names an unreadable certificate file (exit 3), a missing session (exit 6), an unreachable daemon (exit 4)', async () => {
    const missing = join(dir, 'nope.crt');
    expectOneLine(
      await ctl(['health', '--cert', missing]),
      3,
      new RegExp(`client certificate \\(--cert\\) ${missing}: ENOENT`),
    );
    expectOneLine(
      await ctl(['sessions', 'get', '00000000-0000-4000-8000-000000000000']),
      6,
      /NOT_FOUND/,
    );
    expectOneLine(
      await ctl(['health'], { BRIDGECTL_ADDRESS: '127.0.0.1:1' }),
      4,
      /daemon unreachable/,
    );
    expectOneLine(await ctl(['health', '--profile', 'nope']), 2, /no profile "nope" in /);
  });

  it('bash completion from the command definitions, for bridgectl and bridge-ca', async () => {
    const complete = async (entry: string, fn: string, words: string[]) => {
      const script = (await run(entry, ['completion', 'bash'])).stdout;
      const file = join(dir, `${fn}.bash`);
      writeFileSync(file, script);
      const shell = `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await new Promise<string>((resolve, reject) =>
        execFile('bash', ['-c', shell], (e, out) => (e ? reject(e) : resolve(out))),
      );
      return r.trim().split('\n').filter(Boolean).sort();
    };
    const ctlFn = '_bridgectl_complete';
    const entry = 'cmd/bridgectl/src/main.ts';
    expect(await complete(entry, ctlFn, ['bridgectl', 'sessions', 'st'])).toEqual([
      'start',
      'stop',
    ]);
    expect(await complete(entry, ctlFn, ['bridgectl', 'sessions', 'start', '--prov'])).toEqual([
      '--provider',
    ]);
    expect(
      await complete(entry, ctlFn, ['bridgectl', 'sessions', 'list', '--status', 'R']),
    ).toEqual(['RUNNING']);
    expect(await complete(entry, ctlFn, ['bridgectl', '--profile', 'x', 'he'])).toEqual(['health']);
    expect(await complete(entry, ctlFn, ['bridgectl', 'completion', ''])).toEqual([
      'bash',
      'fish',
      'zsh',
    ]);
    const caFn = '_bridge_ca_complete';
    const ca = 'cmd/bridge-ca/src/main.ts';
    expect(await complete(ca, caFn, ['bridge-ca', 'jwt-'])).toEqual(['jwt-keygen', 'jwt-mint']);
    expect(await complete(ca, caFn, ['bridge-ca', 'issue', '--ca-'])).toEqual(['--ca-key']);
  });

  it('bash completion of bridgectl run from the repository: the script defines the command it completes', async () => {
    const script = join(dir, 'from-source.bash');
    writeFileSync(script, (await ctl(['completion', 'bash'])).stdout);
    const elsewhere = mkdtempSync(join(tmpdir(), 'bridgectl-elsewhere-'));
    // A shell with node and the system's tools, and no bridgectl installed.
    const path = `${dirname(process.execPath)}:/usr/bin:/bin`;
    const shell = [
      'command -v bridgectl || echo "no bridgectl"',
      `source ${script}`,
      'type -t bridgectl',
      'complete -p bridgectl',
      `cd ${elsewhere}`,
      'bridgectl health',
      'COMP_WORDS=(bridgectl sessions st); COMP_CWORD=2; _bridgectl_complete',
      `printf "completes %s\\n" "\${COMPREPLY[@]}"`,
    ].join('\n');
    try {
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          'bash',
          ['--norc', '--noprofile', '-c', shell],
          { env: { ...env(), PATH: path }, timeout: 60_000 },
          (e, stdout, stderr) =>
            e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
      expect(out).toMatch(
        /^no bridgectl\nfunction\ncomplete -F _bridgectl_complete bridgectl\nserving {2}version /,
      );
      expect(out).toMatch(/\ncompletes start\ncompletes stop\n$/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('ends quietly when its output is closed (| head): bridgectl, bridge-ca and bridge', async () => {
    const id = (
      await ctl(['sessions', 'start', '--provider', 'mock', '--repo', daemon.repo])
    ).stdout.trim();
    const events = follow(['events', id, '--follow', '--json']);
    let stderr = '';
    events.proc.stderr?.on('data', (d) => {
      stderr += d;
    });
    try {
      await events.output.waitFor('SESSION_STARTED', /"SESSION_STARTED"/);
      // The reader goes away, as `head` does once it has its lines.
      events.proc.stdout?.destroy();
      await ctl(['sessions', 'send', id, 'into a closed pipe']);
      const [code] = await within(
        'events --follow to end after its output closed',
        events.exited,
        20_000,
      );
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    } finally {
      await kill(events.proc, events.exited);
      await ctl(['sessions', 'stop', id]);
    }
    // Each CLI writes into a pipe its reader has already closed.
    const intoClosedPipe = async (entry: string, args: string[]) => {
      const child = spawn(process.execPath, [...ENTRY(entry), ...args], {
        cwd: REPO_ROOT,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const [code] = await within(
        `${entry} ${args.join(' ')} to end`,
        once(child, 'exit') as Promise<[number]>,
        30_000,
      );
      return { entry, args, code, stderr };
    };
    const runs = await Promise.all([
      intoClosedPipe('cmd/bridgectl/src/main.ts', ['--help']),
      intoClosedPipe('cmd/bridgectl/src/main.ts', ['sessions', 'list']),
      intoClosedPipe('cmd/bridge-ca/src/main.ts', ['--help']),
      intoClosedPipe('cmd/bridge/src/main.ts', ['--help']),
      intoClosedPipe('cmd/bridge/src/main.ts', ['--version']),
    ]);
    for (const r of runs) expect(r).toEqual({ ...r, code: 0, stderr: '' });
  });

  it('every CLI has --help, and refuses a bad flag in one line with exit 2', async () => {
    for (const [entry, name] of [
      ['cmd/bridge/src/main.ts', 'bridge'],
      ['cmd/bridge-ca/src/main.ts', 'bridge-ca'],
      ['cmd/bridgectl/src/main.ts', 'bridgectl'],
    ] as const) {
      const help = await run(entry, ['--help']);
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(/usage/i);
      const bad = await run(entry, ['--bogus']);
      expect(bad.code, name).toBe(2);
      expect(bad.stderr, name).toMatch(new RegExp(`^${name}: [^\\n]+\\n$`));
    }
  });

  it("a command's help has its own options, and points at the main help for the rest", async () => {
    const [main, start, completion] = await Promise.all([
      ctl(['--help']),
      ctl(['sessions', 'start', '--help']),
      ctl(['completion', '--help']),
    ]);
    // The main help has the connection options and the exit statuses, once.
    for (const o of ['--profile NAME', '--address HOST:PORT', '--jwt-key FILE', '--server-name']) {
      expect(main.stdout).toContain(o);
    }
    expect(main.stdout).toMatch(/^exit status:\n {2}0 {4}success\n/m);
    for (const o of ['--provider', '--repo', '--opt', '--json']) expect(start.stdout).toContain(o);
    for (const help of [start.stdout, completion.stdout]) {
      expect(help).not.toMatch(/--jwt-key|HOST:PORT|exit status:|internal error/);
    }
    expect(start.stdout).toContain(
      'bridgectl --help lists the connection options (--profile, --address, …) and the exit statuses.',
    );
    // completion connects to nothing: no word of the connection options.
    expect(completion.stdout).toContain('\nbridgectl --help lists the exit statuses.\n');
    expect(start.stdout.split('\n').length).toBeLessThan(20);
  });

  it('speaks of npm, which every Node user has, not pnpm', async () => {
    const [main, noSettings] = await Promise.all([
      ctl(['--help']),
      ctl(['health'], { BRIDGECTL_PROFILES: join(dir, 'no-such-profiles.yaml') }),
    ]);
    expect(main.stdout).toContain('`npm run dev` in the repository writes the "dev"');
    expectOneLine(noSettings, 2, /or run `npm run dev` in the repository, which writes/);
    for (const text of [main.stdout, noSettings.stderr]) expect(text).not.toContain('pnpm');
  });
});

/** Whether util-linux `script` (a pseudo-terminal for a command) is on PATH. */
function hasScriptCommand(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface JsonEvent {
  seq: number;
  type: string;
  text: string;
  data?: Record<string, unknown>;
}

/**
 * A mock_ask session followed by `events --follow --json`, after an input
 * whose "/tool Bash …" line makes the agent ask; resolves once it asked.
 */
async function sessionAsking(command: string) {
  const start = await ctl(['sessions', 'start', '--provider', 'mock_ask', '--repo', daemon.repo]);
  expect(start.code).toBe(0);
  const id = start.stdout.trim();
  const events = follow(['events', id, '--follow', '--json']);
  await ctl(['sessions', 'send', id, `run it\n/tool Bash ${command}`]);
  await events.output.waitFor('PERMISSION_REQUESTED', /"PERMISSION_REQUESTED".*\n/);
  const seen = () => lines(events.output.text()) as JsonEvent[];
  const requestId = seen().find((e) => e.type === 'PERMISSION_REQUESTED')?.data?.request_id;
  if (typeof requestId !== 'string') throw new Error(`no request_id in ${events.output.text()}`);
  const stop = async () => {
    await ctl(['sessions', 'stop', id]);
    await within('events --follow to end with the session', events.exited, 20_000);
  };
  return { id, requestId, events, seen, stop };
}

describe('bridgectl permissions', () => {
  it('respond allow-once: the tool is allowed, decided by the caller; a second answer is refused', async () => {
    const s = await sessionAsking('ls -la');
    try {
      const listed = await ctl(['permissions', 'list', s.id]);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^${s.requestId} {2}Bash {2}ls -la {2}\\[allow_once, allow_session, deny\\] {2}deny at \\S+\n$`,
        ),
      );

      const answered = await ctl(['permissions', 'respond', s.id, s.requestId, 'allow-once']);
      expect(answered).toMatchObject({ code: 0, stderr: '' });
      const seq = Number(/^resolved: seq (\d+)\n$/.exec(answered.stdout)?.[1]);
      await s.events.output.waitFor('the turn to end', /"TURN_COMPLETED"/);
      const resolved = s.seen().find((e) => e.seq === seq);
      expect(resolved).toMatchObject({
        type: 'PERMISSION_RESOLVED',
        data: {
          request_id: s.requestId,
          decision: 'allow_once',
          decided_by: 'caller',
          caller: { subject: 'bridgectl', issuer: 'control' },
        },
      });
      const reply = s.seen().find((e) => e.type === 'AGENT_MESSAGE' && e.seq > seq);
      expect(reply?.text).toContain('Bash was allowed');
      expect((await ctl(['permissions', 'list', s.id])).stdout).toBe(
        'no permission request waits for an answer\n',
      );

      // The first answer wins: the daemon says how the request was resolved.
      expectOneLine(
        await ctl(['permissions', 'respond', s.id, s.requestId, 'deny']),
        1,
        /already resolved: allow_once \(decided by caller\).*FAILED_PRECONDITION/,
      );
      expectOneLine(
        await ctl(['permissions', 'respond', s.id, 'no-such-request', 'deny']),
        6,
        /permission request no-such-request not found/,
      );

      // Rendered for people: the request, its options, and who allowed it.
      const text = (await ctl(['events', s.id])).stdout;
      expect(text).toContain(
        '? Bash ls -la\n  waits for an answer: allow_once, allow_session, deny',
      );
      expect(text).toMatch(/✓ Bash allowed once by caller bridgectl \(issuer control/);
      await s.stop();
    } finally {
      await kill(s.events.proc, s.events.exited);
    }
  });

  it('respond deny --reason --json: the agent is told why, and the reason is recorded', async () => {
    const s = await sessionAsking('rm -rf build');
    try {
      const answered = await ctl([
        'permissions',
        'respond',
        s.id,
        s.requestId,
        'deny',
        '--reason',
        'not on this host',
        '--json',
      ]);
      expect(answered.code).toBe(0);
      const { seq, decision } = JSON.parse(answered.stdout);
      expect(decision).toBe('deny');
      await s.events.output.waitFor('the turn to end', /"TURN_COMPLETED"/);
      expect(s.seen().find((e) => e.seq === seq)).toMatchObject({
        type: 'PERMISSION_RESOLVED',
        data: { decision: 'deny', decided_by: 'caller', reason: 'not on this host' },
      });
      const reply = s.seen().find((e) => e.type === 'AGENT_MESSAGE' && e.seq > seq);
      expect(reply?.text).toContain(
        'Bash was denied (denied by the bridge client: not on this host)',
      );
      await s.stop();
    } finally {
      await kill(s.events.proc, s.events.exited);
    }
  });

  // A real terminal: util-linux `script` runs bridgectl on a pseudo-terminal
  // whose keyboard is this test's pipe.
  it.skipIf(!hasScriptCommand())(
    'events --follow on a terminal asks, sends the answer typed, and carries on',
    async () => {
      const s = await sessionAsking('cat README.md');
      const argv = [
        process.execPath,
        ...ENTRY('cmd/bridgectl/src/main.ts'),
        'events',
        s.id,
        '--follow',
      ];
      const terminal = spawn(
        'script',
        ['-qfec', argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'],
        { cwd: REPO_ROOT, env: env({ NO_COLOR: '1' }), stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const screen = captureOutput(terminal);
      const exited = once(terminal, 'exit') as Promise<[number]>;
      try {
        await screen.waitFor('the question', /allow Bash\? \[o\]nce \/ \[s\]ession \/ \[d\]eny > /);
        expect(screen.text()).toContain('? Bash cat README.md\r\n  waits for an answer:');
        terminal.stdin.write('s\r');
        await screen.waitFor(
          'the answer recorded',
          /✓ Bash allowed for the session by caller bridgectl/,
        );
        await s.events.output.waitFor('the turn to end', /"TURN_COMPLETED"/);
        expect(s.seen().find((e) => e.type === 'PERMISSION_RESOLVED')).toMatchObject({
          data: { decision: 'allow_session', decided_by: 'caller' },
        });
        await screen.waitFor('the reply', /Bash was allowed/);
        await s.stop();
        const [code] = await within(
          'the terminal follower to end with the session',
          exited,
          20_000,
        );
        expect(code).toBe(0);
      } finally {
        await kill(terminal, exited);
        await kill(s.events.proc, s.events.exited);
      }
    },
  );

  it('refuses a malformed decision word with exit 2 before any call', async () => {
    // An unreachable daemon: a call would fail with exit 4 instead.
    expectOneLine(
      await ctl(['permissions', 'respond', '00000000-0000-4000-8000-000000000000', 'r1', 'allow'], {
        BRIDGECTL_ADDRESS: '127.0.0.1:1',
      }),
      2,
      /the decision is one of allow-once, allow-session, deny, not "allow"/,
    );
    expectOneLine(await ctl(['permissions', 'respond', 'only-a-session']), 2, /usage: /);
  });
});

describe('pnpm demo', () => {
  it('starts its own dev daemon, runs two mock turns through the renderer, and stops it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bridgectl-demo-'));
    try {
      const r = await run('cmd/bridgectl/src/demo.ts', [], {
        BRIDGECTL_PROFILES: join(home, 'profiles.yaml'),
        BRIDGE_DEV_DIR: join(home, 'dev'),
        BRIDGE_DEV_LISTEN: '127.0.0.1:0',
        INIT_CWD: home,
      });
      expect(r.stderr).toContain('starting `bridge dev` for the demo');
      expect(r.stderr).toMatch(
        /watch it too with: npm run bridgectl -- events [0-9a-f-]{36} --follow/,
      );
      expect(r.stderr).not.toContain('pnpm');
      expect(r.code).toBe(0);
      expect(r.stdout.match(/── turn done/g)).toHaveLength(2);
      expect(r.stdout.match(/mock\[\d\]: received/g)).toHaveLength(2);
      expect(r.stdout).toContain('■ session stopped');
      // The daemon it started is gone: its port refuses connections.
      const port = Number(
        /address: 127\.0\.0\.1:(\d+)/.exec(readFileSync(join(home, 'profiles.yaml'), 'utf8'))?.[1],
      );
      const refused = await new Promise<boolean>((resolve) => {
        const s = tcpConnect(port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          resolve(false);
        });
        s.once('error', () => resolve(true));
      });
      expect(refused).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);
});

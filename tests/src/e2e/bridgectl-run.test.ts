// `bridgectl run` as a user runs it: a real child process against a real
// daemon over mTLS with the real mock agent, its settings from a profile
// file: the stream and the report, --json, and the exit code of each status.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  captureOutput,
  createTestPki,
  REPO_ROOT,
  startDaemon,
  type TestDaemon,
  waitFor,
  within,
  writeCtlProfile,
} from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let daemon: TestDaemon;
let dir: string;
let profiles: string;

const ENTRY = [
  '--conditions=development',
  '--import',
  'tsx',
  join(REPO_ROOT, 'cmd/bridgectl/src/main.ts'),
];

/** The environment of every run: only the temp profile file, no BRIDGECTL_* of the caller. */
function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(out)) {
    if (k.startsWith('BRIDGECTL_') || k === 'INIT_CWD' || k === 'NO_COLOR') delete out[k];
  }
  return { ...out, BRIDGECTL_PROFILES: profiles };
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function ctl(args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...ENTRY, ...args],
      { cwd: REPO_ROOT, env: env(), timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error?.killed) reject(new Error(`${args.join(' ')} did not finish: ${stderr}`));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

const run = (provider: string, prompt: string, ...more: string[]) =>
  ctl(['run', '--provider', provider, '--repo', daemon.repo, ...more, prompt]);

/** The last line of the report: "task STATUS · 0.1s · session ID · events 1-9". */
const REPORT_HEAD =
  /^task (\w+) · \d+\.\ds(?: · session ([0-9a-f-]{36}))?(?: · events (\d+)-(\d+))?$/m;

/** The session's final status as `sessions get --json` says it (it may still be stopping). */
async function endedStatus(sessionId: string): Promise<string> {
  let status = '';
  await waitFor(
    () => `session ${sessionId} to end (${status})`,
    async () => {
      status = JSON.parse((await ctl(['sessions', 'get', sessionId, '--json'])).stdout).status;
      return status === 'STOPPED' || status === 'FAILED';
    },
  );
  return status;
}

const SLOW = 'a slow answer please, with many many words to stream one by one';

beforeAll(async () => {
  const pki = await createTestPki();
  daemon = await startDaemon({
    pki,
    fakeProviders: { crash: ['crash-on-input'] },
    config: {
      providers: {
        mock_ask: { adapter: 'mock', permissions: 'ask', permission_timeout: '60s' },
        ghost: { binary: '/nonexistent/ghost-agent' },
      },
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'bridgectl-run-'));
  profiles = writeCtlProfile(dir, daemon.port, pki);
});
afterAll(async () => {
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bridgectl run', () => {
  it('COMPLETED: streams the task readably, ends with the report, exit 0, the session stopped', async () => {
    const r = await run('mock', 'hello task');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^● session [0-9a-f-]{36} started: mock/);
    expect(lines).toContain('> hello task');
    expect(r.stdout).toMatch(
      /^mock\[1\]: received "hello task" \(10 characters, 2 words\)\. done$/m,
    );
    expect(r.stdout).toMatch(/^── turn done · 10 in \/ \d+ out tokens/m);
    const head = REPORT_HEAD.exec(r.stdout);
    expect(head?.[1]).toBe('COMPLETED');
    expect(head?.[3]).toBe('1');
    expect(lines.at(-1)).toMatch(/^ {2}usage {2}10 in \/ \d+ out tokens · \$0\.0000$/);
    expect(await endedStatus(head?.[2] as string)).toBe('STOPPED');
  });

  it('--json prints only the report, every field present', async () => {
    const r = await run('mock', 'hello json', '--json');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report).sort()).toEqual(
      [
        'costUsd',
        'daemon',
        'durationMs',
        'error',
        'firstSeq',
        'lastSeq',
        'permissions',
        'sessionId',
        'status',
        'summary',
        'toolCalls',
        'usage',
      ].sort(),
    );
    expect(report).toMatchObject({
      status: 'COMPLETED',
      summary: expect.stringMatching(/^mock\[1\]: received "hello json"/),
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      daemon: null,
      firstSeq: 1,
      toolCalls: [],
      permissions: [],
      usage: { input_tokens: 10 },
      costUsd: 0,
      error: '',
    });
    expect(report.lastSeq).toBeGreaterThan(report.firstSeq);
  });

  it('SKIPPED (exit 7) for an unavailable or unknown provider, with the reason, nothing started', async () => {
    const sessions = async () => JSON.parse((await ctl(['sessions', 'list', '--json'])).stdout);
    const before = await sessions();
    const ghost = await run('ghost', 'hello');
    expect({ code: ghost.code, stderr: ghost.stderr }).toEqual({ code: 7, stderr: '' });
    expect(ghost.stdout).toMatch(
      /^task SKIPPED · \d+\.\ds\n {2}why {4}provider "ghost" is unavailable: /,
    );
    const unknown = await run('nope', 'hello', '--json');
    expect(unknown.code).toBe(7);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      status: 'SKIPPED',
      sessionId: '',
      error: expect.stringMatching(/^provider "nope" is not configured/),
      usage: null,
      costUsd: null,
    });
    expect(await sessions()).toEqual(before);
  });

  it('HALTED (exit 8) on --timeout and when the agent crashes', async () => {
    const slow = await run('mock', SLOW, '--timeout', '1500ms');
    expect(slow.code).toBe(8);
    expect(REPORT_HEAD.exec(slow.stdout)?.[1]).toBe('HALTED');
    expect(slow.stdout).toContain('  why    timed out after 1500 ms while the agent worked\n');
    expect(await endedStatus(REPORT_HEAD.exec(slow.stdout)?.[2] as string)).toBe('STOPPED');

    const crash = await run('crash', 'go', '--json');
    expect(crash.code).toBe(8);
    expect(JSON.parse(crash.stdout)).toMatchObject({
      status: 'HALTED',
      error: 'the session failed before the turn completed: agent exited with code 7',
    });
  });

  it('ABORTED (exit 130) on Ctrl-C mid-turn; the session is stopped', async () => {
    const proc = spawn(
      process.execPath,
      [...ENTRY, 'run', '--provider', 'mock', '--repo', daemon.repo, SLOW],
      { cwd: REPO_ROOT, env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = captureOutput(proc);
    const exited = once(proc, 'exit') as Promise<[number | null]>;
    try {
      await output.waitFor('the reply to stream', /mock\[1\]:/, 30_000);
      proc.kill('SIGINT');
      const [code] = await within('bridgectl run to end after Ctrl-C', exited, 20_000);
      expect(code).toBe(130);
      const head = REPORT_HEAD.exec(output.text());
      expect(head?.[1]).toBe('ABORTED');
      expect(output.text()).toMatch(/^ {2}why {4}aborted while the agent worked/m);
      expect(await endedStatus(head?.[2] as string)).toBe('STOPPED');
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    }
  });

  it('--allow-tool and --deny-tools answer the agent’s permission requests', async () => {
    const prompt = 'check the tree\n/tool Bash ls -la';
    const allowed = await run('mock_ask', prompt, '--allow-tool', 'Bash');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^┌ Bash \{"command":"ls -la"\}$/m);
    expect(allowed.stdout).toContain('  tools  Bash (allow_once)\n');
    const denied = await run('mock_ask', prompt, '--deny-tools', '--json');
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      toolCalls: [{ name: 'Bash', permission: 'deny', isError: true }],
      permissions: [{ tool: 'Bash', decision: 'deny', decidedBy: 'caller' }],
    });
  });

  it('a malformed --timeout is a usage error (exit 2)', async () => {
    const r = await run('mock', 'hello', '--timeout', 'soon');
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^bridgectl: run: --timeout wants a duration/);
  });
});

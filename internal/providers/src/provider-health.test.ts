import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeOutput } from './binary-probe.js';
import { type HealthProbe, probeHealth } from './provider-health.js';
import { createProviders } from './registry.js';
import { SupervisedProcess } from './supervised-process.js';
import { running, until, within } from './testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'provider-health-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TIMEOUT_MS = 300;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/**
 * A CLI stand-in. Each run logs its first argument; until `ready` exists,
 * every run forks a grandchild that holds stdout and hangs (pids logged);
 * then `--version` prints a version and `auth` a logged-in status.
 */
function cli(name: string, hangOn: 'all' | 'auth' = 'all') {
  const base = join(dir, name);
  const [log, pids, ready] = [`${base}.log`, `${base}.pids`, `${base}.ready`];
  const hang = hangOn === 'all' ? 'true' : '[ "$1" = auth ]';
  writeFileSync(
    base,
    `#!/bin/sh
echo "$1" >> ${log}
if [ ! -e ${ready} ] && ${hang}; then
  sleep 600 & echo "$$ $!" >> ${pids}; sleep 600
fi
case "$1" in
  --version) echo "2.1.0 (Claude Code)" ;;
  auth) echo '{"loggedIn":true,"authMethod":"api_key"}' ;;
esac
`,
  );
  chmodSync(base, 0o755);
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  return {
    path: base,
    runs: () => read(log).split('\n').filter(Boolean),
    pids: () => read(pids).split(/\s+/).filter(Boolean).map(Number),
    answer: () => writeFileSync(ready, ''),
  };
}

function health(bin: string, over: Partial<HealthProbe> = {}): HealthProbe {
  return {
    binary: async () => bin,
    env,
    versionRequired: true,
    parseVersion: (out) => out.split(' ')[0] ?? '',
    probeAuth: async (path, e, deadline) => {
      const r = await probeOutput(path, ['auth', 'status'], { env: e, deadline });
      return r.ok ? { state: 'authenticated', detail: r.output } : { state: 'unknown', detail: '' };
    },
    timeoutMs: TIMEOUT_MS,
    ...over,
  };
}

const allGone = (pids: number[]) => () => pids.every((pid) => !running(pid));

describe('probeHealth', () => {
  it('answers at its deadline when --version and the auth check hang, and leaves nothing running', async () => {
    const c = cli('hang-all');
    const r = await within(probeHealth(health(c.path)), 'the health probe');
    expect(r).toEqual({
      timedOut: true,
      status: expect.objectContaining({
        available: false,
        binaryPath: c.path,
        error: `"${c.path} --version" probe timed out after ${TIMEOUT_MS}ms`,
        authState: 'unknown',
        authDetail: `probe timed out after ${TIMEOUT_MS}ms`,
      }),
    });
    // Both probes ran, each with a grandchild: all of them are gone.
    expect(c.pids()).toHaveLength(4);
    await until(allGone(c.pids()), 'every probe process to be gone');
  });

  it('an auth check that hangs leaves the provider available, its auth unknown', async () => {
    const c = cli('hang-auth', 'auth');
    const r = await within(probeHealth(health(c.path)), 'the health probe');
    expect(r.timedOut).toBe(true);
    expect(r.status).toMatchObject({
      available: true,
      version: '2.1.0',
      authState: 'unknown',
      authDetail: `probe timed out after ${TIMEOUT_MS}ms`,
    });
    await until(allGone(c.pids()), 'the auth probe to be gone');
  });

  it('bounds binary resolution by the same deadline', async () => {
    const stuck = new Promise<string>(() => {});
    const r = await within(
      probeHealth(health('/unused', { binary: () => stuck })),
      'the health probe',
    );
    expect(r).toEqual({
      timedOut: true,
      status: expect.objectContaining({
        available: false,
        error: `probe timed out after ${TIMEOUT_MS}ms resolving the binary`,
      }),
    });
  });

  it('a command that need not answer --version is available, and that is an answer', async () => {
    const c = cli('hang-any');
    const r = await within(
      probeHealth(health(c.path, { versionRequired: false, probeAuth: undefined })),
      'the health probe',
    );
    expect(r).toMatchObject({ timedOut: false, status: { available: true, version: '' } });
    await until(allGone(c.pids()), 'the version probe to be gone');
  });

  it('reports what a binary that answers says', async () => {
    const c = cli('answers');
    c.answer();
    const r = await within(probeHealth(health(c.path)), 'the health probe');
    expect(r).toEqual({
      timedOut: false,
      status: expect.objectContaining({
        available: true,
        error: '',
        version: '2.1.0',
        authState: 'authenticated',
      }),
    });
  });
});

describe('provider health with probe_timeout', () => {
  it('does not cache a probe that timed out: concurrent callers share it, the next call probes again', async () => {
    const c = cli('claude');
    const providers = createProviders(
      { claude: { binary: c.path, env: {}, probeTimeoutMs: TIMEOUT_MS, healthTtlMs: 60_000 } },
      { parentEnv: process.env, tempRoot: dir, spawn: SupervisedProcess.spawn },
    );
    const claude = providers.get('claude')!;
    const [a, b] = await within(
      Promise.all([claude.health(), claude.health()]),
      'the first health calls',
    );
    expect(a).toBe(b);
    expect(a).toMatchObject({
      available: false,
      error: `"${c.path} --version" probe timed out after ${TIMEOUT_MS}ms`,
      authState: 'unknown',
      authDetail: `probe timed out after ${TIMEOUT_MS}ms`,
    });
    expect(c.runs().sort()).toEqual(['--version', 'auth']);
    await until(allGone(c.pids()), 'the probes to be gone');

    c.answer();
    expect(await within(claude.health(), 'the second health call')).toMatchObject({
      available: true,
      version: '2.1.0',
      authState: 'authenticated',
    });
    expect(c.runs()).toHaveLength(4);
    // An answer is cached.
    await within(claude.health(), 'the third health call');
    expect(c.runs()).toHaveLength(4);
  });
});

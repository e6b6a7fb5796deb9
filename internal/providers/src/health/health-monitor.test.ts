import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, within } from '@agent-bridge/waits';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Provider, ProviderStatus } from '../contract/provider.js';
import { SupervisedProcess } from '../process/supervised-process.js';
import { createProviders, type ProviderDefinition } from '../registry.js';
import { running } from '../testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'health-monitor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each test's providers end with it: no probe or retry outlives a test.
let lifetimes: AbortController[] = [];
afterEach(() => {
  for (const l of lifetimes) l.abort();
  lifetimes = [];
});

/** The budget of one probe run in these tests. */
const PROBE_MS = 300;

let clis = 0;
/**
 * A claude stand-in steered by files beside it. Every run logs its first
 * argument. `hang('--version')` / `hang('auth')` make that call fork a
 * grandchild holding stdout and hang (pids logged); `say(text)` sets what
 * --version prints; `fail()` makes --version exit 1.
 */
function cli() {
  const base = join(dir, `claude-${++clis}`);
  const [log, pids, version, failing] = ['log', 'pids', 'version', 'fail'].map(
    (x) => `${base}.${x}`,
  ) as [string, string, string, string];
  const script = `#!/bin/sh
echo "$1" >> ${log}
if [ -e "${base}.hang$1" ]; then
  sleep 600 & echo "$$ $!" >> ${pids}; sleep 600
fi
case "$1" in
  --version) if [ -e ${failing} ]; then echo "boom: cannot load" >&2; exit 1; fi
             if [ -e ${version} ]; then cat ${version}; else echo "2.1.0 (Claude Code)"; fi ;;
  auth) echo '{"loggedIn":true,"authMethod":"api_key"}' ;;
esac
`;
  const write = (path: string) => {
    writeFileSync(path, script);
    chmodSync(path, 0o755);
  };
  write(base);
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  return {
    path: base,
    runs: () => read(log).split('\n').filter(Boolean),
    pids: () => read(pids).split(/\s+/).filter(Boolean).map(Number),
    hang: (arg: '--version' | 'auth') => writeFileSync(`${base}.hang${arg}`, ''),
    answer: (arg: '--version' | 'auth') => rmSync(`${base}.hang${arg}`, { force: true }),
    say: (text: string) => writeFileSync(version, `${text}\n`),
    fail: () => writeFileSync(failing, ''),
    /** Replaces the file with a new one (a new inode): what an upgrade does. */
    replace: () => {
      write(`${base}.new`);
      renameSync(`${base}.new`, base);
    },
  };
}

function providers(defs: Record<string, Partial<ProviderDefinition>>): Map<string, Provider> {
  const lifetime = new AbortController();
  lifetimes.push(lifetime);
  const full = Object.fromEntries(
    Object.entries(defs).map(([id, d]) => [
      id,
      { env: {}, probeTimeoutMs: PROBE_MS, healthTtlMs: 60_000, ...d },
    ]),
  );
  return createProviders(full, {
    parentEnv: process.env,
    tempRoot: dir,
    spawn: SupervisedProcess.spawn,
    lifetime: lifetime.signal,
  });
}

const claude = (path: string, over: Partial<ProviderDefinition> = {}) =>
  providers({ claude: { adapter: 'claude', binary: path, ...over } }).get('claude')!;

/** Reads health until `cond` holds; the last status read. Throws, with what it saw, after `ms`. */
async function healthUntil(
  p: Provider,
  cond: (s: ProviderStatus) => boolean,
  what: string,
  ms = 10_000,
): Promise<ProviderStatus> {
  let last: ProviderStatus | undefined;
  await waitFor(
    () => `${what} (last: ${JSON.stringify(last)})`,
    async () => {
      last = await p.health();
      return cond(last);
    },
    ms,
    20,
  );
  return last as ProviderStatus;
}

const gone = (pids: number[]) => () => pids.every((pid) => !running(pid));

describe('HealthMonitor: health is never waited for', () => {
  it('answers at once while the first probes run, then with what they found; --version runs once per binary', async () => {
    const c = cli();
    c.hang('--version');
    const p = claude(c.path, { probeTimeoutMs: 60_000 });
    // The probe is hanging, with a minute of budget: the read does not wait for it.
    const first = await within('the first health read', p.health());
    expect(first).toMatchObject({
      available: true,
      error: '',
      binaryPath: c.path,
      version: '',
      probeState: 'pending',
    });
    expect(first.probeDetail).toContain('--version is being probed');
    expect(first.confirmedAt).toBeUndefined();
    await waitFor('the --version probe and its grandchild to hang', () => c.pids().length === 2);
    expect(await within('a second health read', p.health())).toMatchObject({
      probeState: 'pending',
    });
  });

  it('reports the version and auth once they answer, and does not run --version again', async () => {
    const c = cli();
    const p = claude(c.path);
    const known = await healthUntil(p, (s) => s.probeState === 'current', 'the probes to answer');
    expect(known).toMatchObject({
      available: true,
      version: '2.1.0',
      authState: 'authenticated',
      probeDetail: '',
    });
    expect(known.confirmedAt).toBeInstanceOf(Date);
    expect(c.runs().sort()).toEqual(['--version', 'auth']);
    for (let i = 0; i < 5; i++) await p.health();
    expect(c.runs().filter((r) => r === '--version')).toHaveLength(1);
  });

  it('providers of the same binary share one --version run', async () => {
    const c = cli();
    const all = providers({
      a: { adapter: 'claude', binary: c.path },
      b: { adapter: 'claude', binary: c.path, env: { HOME: dir } },
    });
    for (const p of all.values()) {
      await healthUntil(p, (s) => s.version === '2.1.0', 'the version');
    }
    expect(c.runs().filter((r) => r === '--version')).toHaveLength(1);
    // Auth depends on each provider's environment: asked once each.
    await waitFor('both auth checks', () => c.runs().filter((r) => r === 'auth').length === 2);
  });
});

describe('HealthMonitor: a probe cut short never refuses a working agent', () => {
  it('a --version that outlasts its budget leaves the provider available and pending, is killed, and is retried', async () => {
    const c = cli();
    c.hang('--version');
    const p = claude(c.path);
    const missed = await healthUntil(
      p,
      (s) => s.probeDetail.includes('timed out'),
      'the --version probe to be cut short',
    );
    expect(missed).toMatchObject({ available: true, error: '', probeState: 'pending' });
    expect(missed.probeDetail).toMatch(
      new RegExp(`--version probe timed out after ${PROBE_MS}ms \\(.*\\); retrying`),
    );
    await waitFor('the cut-short probe and its grandchild to be gone', gone(c.pids()));
    // The CLI answers again: the background retry finds the version, with no read asking for it.
    c.answer('--version');
    const retried = await healthUntil(p, (s) => s.version === '2.1.0', 'the retry to answer');
    expect(retried).toMatchObject({ available: true, probeState: 'current' });
  });

  it('an auth re-check cut short keeps the earlier answer, reported stale with when it was confirmed', async () => {
    const c = cli();
    const p = claude(c.path, { healthTtlMs: 200 });
    const good = await healthUntil(p, (s) => s.probeState === 'current', 'the first answers');
    expect(good.authState).toBe('authenticated');
    c.hang('auth');
    const stale = await healthUntil(
      p,
      (s) => s.probeDetail.includes('the auth re-check probe timed out'),
      'the re-check to be cut short',
    );
    expect(stale.probeState).toBe('stale');
    expect(stale).toMatchObject({
      available: true,
      version: '2.1.0',
      authState: 'authenticated',
      authDetail: good.authDetail,
    });
    expect(stale.probeDetail).toContain(`the auth re-check probe timed out after ${PROBE_MS}ms`);
    expect(stale.confirmedAt!.getTime()).toBeLessThan(stale.checkedAt.getTime());
    await waitFor('the cut-short auth probes to be gone', gone(c.pids()));
    c.answer('auth');
    await healthUntil(p, (s) => s.probeState === 'current', 'a later re-check to answer');
  });

  it('an auth answer older than health_ttl is shown stale while a read has it re-checked', async () => {
    const c = cli();
    const p = claude(c.path, { healthTtlMs: 200 });
    await healthUntil(p, (s) => s.probeState === 'current', 'the first answers');
    const due = await healthUntil(p, (s) => s.probeState === 'stale', 'the answer to come due');
    expect(due.probeDetail).toMatch(/^the auth answer of .* is being re-checked$/);
    expect(due.authState).toBe('authenticated');
    await healthUntil(p, (s) => s.probeState === 'current', 'the re-check to answer');
    expect(c.runs().filter((r) => r === 'auth').length).toBeGreaterThanOrEqual(2);
  });
});

describe('HealthMonitor: definite failures make a provider unavailable', () => {
  it('a deleted binary is unavailable at the first read after it went', async () => {
    const c = cli();
    const p = claude(c.path);
    await healthUntil(p, (s) => s.probeState === 'current', 'the first answers');
    unlinkSync(c.path);
    const st = await p.health();
    expect(st).toMatchObject({ available: false, probeState: 'current' });
    expect(st.error).toBe(`binary "${c.path}" not found`);
  });

  it('a binary replaced by one whose --version fails is unavailable once the new file is probed', async () => {
    const c = cli();
    const p = claude(c.path);
    await healthUntil(p, (s) => s.version === '2.1.0', 'the first version');
    c.fail();
    // Same file: the answer holds, nothing is probed again.
    expect(await p.health()).toMatchObject({ available: true, version: '2.1.0' });
    expect(c.runs().filter((r) => r === '--version')).toHaveLength(1);
    c.replace();
    const st = await healthUntil(p, (s) => !s.available, 'the new binary to be found broken');
    expect(st.error).toBe(`"${c.path} --version" failed: boom: cannot load`);
    expect(c.runs().filter((r) => r === '--version')).toHaveLength(2);
  });

  it('an upgraded binary is probed again and its new version reported', async () => {
    const c = cli();
    const p = claude(c.path);
    await healthUntil(p, (s) => s.version === '2.1.0', 'the first version');
    c.say('2.2.5 (Claude Code)');
    c.replace();
    await healthUntil(p, (s) => s.version === '2.2.5', 'the new version');
  });

  it('a --version that prints no version is a broken binary', async () => {
    const c = cli();
    c.say('Segmentation fault');
    const st = await healthUntil(claude(c.path), (s) => !s.available, 'the verdict');
    expect(st.error).toBe(`"${c.path} --version" printed no version: Segmentation fault`);
  });

  it('a stdio command is available whatever --version does', async () => {
    const c = cli();
    c.fail();
    const p = providers({ any: { adapter: 'stdio', binary: c.path } }).get('any')!;
    const st = await healthUntil(p, (s) => s.probeState === 'current', 'the probe to answer');
    expect(st).toMatchObject({ available: true, version: '' });
  });
});

describe('HealthMonitor: the daemon stopping ends the probes', () => {
  it('kills a running probe and retries nothing afterwards', async () => {
    const c = cli();
    c.hang('--version');
    const lifetime = new AbortController();
    const p = createProviders(
      { claude: { adapter: 'claude', binary: c.path, env: {}, probeTimeoutMs: 60_000 } },
      {
        parentEnv: process.env,
        tempRoot: dir,
        spawn: SupervisedProcess.spawn,
        lifetime: lifetime.signal,
      },
    ).get('claude')!;
    await p.health();
    await waitFor('the --version probe and its grandchild to hang', () => c.pids().length === 2);
    lifetime.abort();
    await waitFor('the probe to be killed', gone(c.pids()));
    const runs = c.runs().length;
    await p.health();
    expect(c.runs()).toHaveLength(runs);
  });
});

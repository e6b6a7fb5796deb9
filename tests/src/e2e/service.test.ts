import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  agentProcesses,
  descendants,
  groupMembers,
  isAlive,
  REPO_ROOT,
  readUnit,
  startBridge,
  unitValue,
  waitFor,
  watchdogOf,
  within,
} from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../examples/run-example.js';

// The daemon as it is installed: `pnpm package` writes the deploy directory
// (a build, then `pnpm deploy --prod`), which is then moved to another
// place, as an installation copied to /opt/agent-bridge is, and run from
// there with plain node exactly as the systemd unit's ExecStart says.

const UNIT = join(REPO_ROOT, 'packaging/systemd/bridge.service');
const INSTALL_DIR = '/opt/agent-bridge';
const CONFIG_FILE = '/etc/agent-bridge/bridge.yaml';

const work = mkdtempSync(join(tmpdir(), 'bridge-service-'));
const installed = join(work, 'opt/agent-bridge');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `pnpm test` puts npm_* variables in the environment; pnpm would read them as its config. */
const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

beforeAll(async () => {
  const built = join(work, 'build');
  const res = await run(process.execPath, [join(REPO_ROOT, 'scripts/package.mjs'), built], {
    cwd: REPO_ROOT,
    env: cleanEnv(),
    timeoutMs: 150_000,
  });
  if (res.code !== 0) {
    throw new Error(`pnpm package failed (exit ${res.code}):\n${res.stdout}${res.stderr}`);
  }
  mkdirSync(join(work, 'opt'));
  renameSync(built, installed);
}, 180_000);

/** The unit's ExecStart with the installation and config moved to where this test put them. */
function execStart(configPath: string): { file: string; args: string[]; cwd: string } {
  const [node, main, ...rest] = unitValue(readUnit(UNIT), 'Service.ExecStart').split(/\s+/);
  expect(node).toBe('/usr/bin/node');
  expect(main?.startsWith(`${INSTALL_DIR}/`)).toBe(true);
  expect(rest).toEqual(['--config', CONFIG_FILE]);
  return {
    file: process.execPath,
    args: [join(installed, relative(INSTALL_DIR, main!)), '--config', configPath],
    cwd: work,
  };
}

/** Every workspace package's devDependencies: none may be in an installation. */
/**
 * What any workspace package needs only to be developed: its
 * devDependencies that no package depends on at run time (the SDK develops
 * with the NATS clients the fleet runs on).
 */
function devDependencies(): string[] {
  const manifests = [
    'package.json',
    ...['packages', 'internal', 'cmd'].flatMap((d) =>
      readdirSync(join(REPO_ROOT, d)).map((p) => join(d, p, 'package.json')),
    ),
  ]
    .filter((f) => existsSync(join(REPO_ROOT, f)))
    .map(
      (f) =>
        JSON.parse(readFileSync(join(REPO_ROOT, f), 'utf8')) as {
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        },
    );
  const runtime = new Set(manifests.flatMap((m) => Object.keys(m.dependencies ?? {})));
  return [...new Set(manifests.flatMap((m) => Object.keys(m.devDependencies ?? {})))].filter(
    (d) => !runtime.has(d),
  );
}

describe('the installation (pnpm package)', () => {
  it('runs bridge, bridge-ca and bridgectl from node_modules/.bin after being moved, with production dependencies only', async () => {
    const version = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'cmd/bridge/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const bridge = await run(join(installed, 'node_modules/.bin/bridge'), ['--version'], {
      cwd: work,
      env: cleanEnv(),
      timeoutMs: 20_000,
    });
    expect(bridge.stderr).toBe('');
    expect(bridge.stdout).toBe(`${version}\n`);
    const ca = await run(join(installed, 'node_modules/.bin/bridge-ca'), ['--help'], {
      cwd: work,
      env: cleanEnv(),
      timeoutMs: 20_000,
    });
    expect(ca.code).toBe(0);
    expect(ca.stdout).toMatch(/^bridge-ca: /);
    const ctl = await run(join(installed, 'node_modules/.bin/bridgectl'), ['--help'], {
      cwd: work,
      env: cleanEnv(),
      timeoutMs: 20_000,
    });
    expect(ctl.code).toBe(0);
    expect(ctl.stdout).toMatch(/^bridgectl/);

    // The unit and the example config travel with it.
    expect(existsSync(join(installed, 'systemd/bridge.service'))).toBe(true);
    expect(existsSync(join(installed, 'bridge.production.yaml'))).toBe(true);

    const store = readdirSync(join(installed, 'node_modules/.pnpm'));
    const dev = devDependencies();
    expect(dev).toEqual(expect.arrayContaining(['typescript', 'vitest', 'tsx', '@types/node']));
    // protobufjs (under @grpc/proto-loader and @grpc/reflection) lists
    // @types/node among its runtime dependencies.
    for (const name of dev.filter((d) => d !== '@types/node')) {
      const dir = `${name.replace('/', '+')}@`;
      expect(
        store.filter((d) => d.startsWith(dir)),
        name,
      ).toEqual([]);
    }
    // Of our own packages only the built JavaScript: no sources, tests or
    // test helpers. The published packages (@agent-bridge/proto, the SDK that
    // bridgectl uses, and @agent-bridge/scope) are the exception: they ship
    // their sources for their source maps (tests/src/examples/pack.test.ts).
    const ours = store.flatMap((d) => {
      const name = /^@agent-bridge\+([^@]+)@/.exec(d)?.[1];
      if (!name || name === 'proto' || name === 'bridgeclient' || name === 'scope') return [];
      const pkg = join(installed, 'node_modules/.pnpm', d, 'node_modules/@agent-bridge', name);
      return readdirSync(pkg, { recursive: true, encoding: 'utf8' }).map((f) => `${name}/${f}`);
    });
    expect(ours).toEqual(
      expect.arrayContaining([
        'bridge-daemon/dist/main.js',
        'bridge-ca/dist/main.js',
        'bridgectl/dist/main.js',
        // The web console's page, built at packaging: `bridgectl ui` serves it as is.
        'bridgectl/dist/console-assets/index.html',
        'bridgectl/dist/console-assets/app.js',
        'bridgectl/dist/console-assets/app.css',
      ]),
    );
    expect(ours.filter((f) => /\/(src|testing)(\/|$)|\.test\.|\.tsbuildinfo$/.test(f))).toEqual([]);
  });

  it("started as the unit's ExecStart, stops on SIGTERM with exit 0 and leaves no agent behind", async () => {
    const bridge = await startBridge({
      command: execStart,
      env: { NODE_ENV: 'production' },
      config: { sessions: { stop_grace_period: '2s' } },
    });
    try {
      const { daemon } = bridge;
      await bridge.call((c) => c.startSession, {
        projectId: bridge.project,
        sessionId: randomUUID(),
        repoPath: daemon.repo,
        provider: 'mock',
        agentOpts: {},
      });
      await waitFor('the mock agent under the daemon', () => agentProcesses(daemon.pid).length > 0);
      const children = descendants(daemon.pid);
      // The orphan watchdog runs from the installation, shipped with its package.
      const watchdog = watchdogOf(daemon.pid);
      expect(watchdog, 'the orphan watchdog').toBeDefined();
      const script = readFileSync(`/proc/${watchdog}/cmdline`, 'utf8').split('\0')[1] ?? '';
      expect(script.startsWith(`${installed}/`), script).toBe(true);
      expect(script).toMatch(/\/@agent-bridge\/providers\/bin\/orphan-watchdog\.mjs$/);
      // Each agent leads its own process group.
      const groups = children.filter((pid) => groupMembers(pid).includes(pid));
      expect(groups.length).toBeGreaterThan(0);

      process.kill(daemon.pid, 'SIGTERM');
      const { code, signal } = await within('the daemon to exit', daemon.exited, 20_000);
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      // The daemon exits only once its agents are gone.
      for (const pid of children) expect(isAlive(pid), `pid ${pid}`).toBe(false);
      for (const g of groups) expect(groupMembers(g), `process group ${g}`).toEqual([]);
      expect(daemon.output()).toMatch(/shutdown complete/);
    } finally {
      await bridge.close();
    }
  });
});

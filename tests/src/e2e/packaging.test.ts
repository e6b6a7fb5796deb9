import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig, parseDuration } from '@agent-bridge/config';
import { REPO_ROOT, readUnit, testProviderHost, unitValue } from '@agent-bridge/harness';
import { createProviders, MockProvider } from '@agent-bridge/providers/host';
import { describe, expect, it } from 'vitest';

// packaging/: the systemd unit and the production config it starts the
// daemon with must agree, and the config must load as the daemon loads it.

const UNIT = join(REPO_ROOT, 'packaging/systemd/bridge.service');
const PRODUCTION = join(REPO_ROOT, 'packaging/bridge.production.yaml');
const unit = readUnit(UNIT);
const service = (key: string) => unitValue(unit, `Service.${key}`);
const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

describe('packaging/bridge.production.yaml', () => {
  const { config } = loadConfig(PRODUCTION);

  it('loads with the real config loader and builds only real agents, named by absolute path', () => {
    const providers = createProviders(
      config.providers,
      testProviderHost({ parentEnv: { PATH: '/nonexistent' } }),
    );
    expect([...providers.keys()]).toEqual(['claude', 'codex']);
    for (const p of providers.values()) expect(p).not.toBeInstanceOf(MockProvider);
    for (const def of Object.values(config.providers)) expect(def.binary).toMatch(/^\//);
  });

  it('keeps its files where the unit lets the daemon read and write them', () => {
    const configFile = /--config (\S+)$/.exec(service('ExecStart'))?.[1] ?? '';
    expect(configFile).toBe('/etc/agent-bridge/bridge.yaml');
    const etc = dirname(configFile);
    const readOnly = [
      config.tls.caBundle,
      config.tls.cert,
      config.tls.key,
      ...config.tls.crl,
      ...config.auth.jwtPublicKeys.map((k) => k.keyPath),
    ];
    for (const file of readOnly) expect(within(file, etc), file).toBe(true);
    expect(dirname(config.logging.auditPath)).toBe(`/var/log/${service('LogsDirectory')}`);
    // The process group record outlives a crash (and the restart after it), not a reboot.
    expect(config.sessions.stateDir).toBe(`/run/${service('RuntimeDirectory')}`);
    expect(service('RuntimeDirectoryPreserve')).toBe('restart');
    // The session store outlives a reboot too: in the unit's state directory, never under /run.
    expect(config.storage.backend).toBe('embedded');
    expect(config.storage.sync).toBe(true);
    expect(dirname(config.storage.path)).toBe(`/var/lib/${service('StateDirectory')}`);
    const writable = service('ReadWritePaths').split(/\s+/);
    for (const dir of config.allowedPaths) {
      expect(
        writable.some((w) => within(dir, w.replace(/^-/, ''))),
        dir,
      ).toBe(true);
    }
  });

  it('stops within the unit: TimeoutStopSec leaves room beyond sessions.stop_grace_period', () => {
    expect(service('KillMode')).toBe('mixed');
    expect(parseDuration(service('TimeoutStopSec'))).toBeGreaterThanOrEqual(
      config.sessions.stopGracePeriodMs + 10_000,
    );
  });
});

describe('packaging/systemd/bridge.service', () => {
  it('runs node directly, reloads with SIGHUP and is hardened', () => {
    expect(service('ExecStart')).toMatch(/^\/usr\/bin\/node \/opt\/agent-bridge\/\S+\.js /);
    expect(service('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(service('RestartPreventExitStatus')).toBe('2');
    for (const [key, value] of Object.entries({
      User: 'agent-bridge',
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'read-only',
      PrivateTmp: 'yes',
      Restart: 'on-failure',
      Environment: 'NODE_ENV=production',
      CapabilityBoundingSet: '',
    })) {
      expect(service(key), key).toBe(value);
    }
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  it.skipIf(!analyze || !existsSync('/usr/bin/node'))(
    'passes systemd-analyze verify without a warning',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'bridge-unit-'));
      try {
        copyFileSync(UNIT, join(dir, 'bridge.service'));
        const res = spawnSync('systemd-analyze', ['verify', join(dir, 'bridge.service')], {
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect(res.stderr).toBe('');
        expect(res.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

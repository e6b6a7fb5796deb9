import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, REPO_ROOT, type TestPki } from '../harness/index.js';

let pki: TestPki;
let dir: string;

beforeAll(async () => {
  pki = await createTestPki();
  dir = mkdtempSync(join(tmpdir(), 'bridge-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bridge(args: string[]) {
  const r = spawnSync(
    process.execPath,
    [
      '--conditions=development',
      '--import',
      'tsx',
      join(REPO_ROOT, 'cmd/bridge/src/main.ts'),
      ...args,
    ],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, BRIDGE_READY_FD: '1' },
    },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function config(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const good = () => `server:
  listen: "127.0.0.1:0"
tls:
  ca_bundle: ${pki.caPath}
  cert: ${pki.serverCertPath}
  key: ${pki.serverKeyPath}
auth:
  jwt_public_keys:
    - issuer: control
      key_path: ${pki.issuers.control.pubPath}
providers:
  mock: {}
allowed_paths: ["${dir}"]
`;

describe('bridge CLI', () => {
  it('check-config accepts a valid file', () => {
    const r = bridge(['check-config', '--config', config('good.yaml', good())]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ok \(listen 127\.0\.0\.1:0, 1 providers, 1 allowed paths\)/);
  });

  it('check-config reports every problem with its key path and line, exit 2', () => {
    const r = bridge([
      'check-config',
      '--config',
      config('bad.yaml', `${good()}sessions:\n  idle_timout: 5m\n  stop_grace_period: soon\n`),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('bad.yaml:15: sessions.idle_timout: unknown key');
    expect(r.err).toContain('bad.yaml:16: sessions.stop_grace_period: bad duration "soon"');
  });

  it('refuses to start without TLS material, naming what is missing', () => {
    const noTls = good().replace(/tls:\n( {2}.*\n){3}/, '');
    const r1 = bridge(['--config', config('notls.yaml', noTls)]);
    expect(r1.code).toBe(2);
    expect(r1.err).toContain('tls: is required: the daemon never serves without TLS');
    const r2 = bridge([
      '--config',
      config('missingkey.yaml', good().replace(pki.serverKeyPath, join(dir, 'nope.key'))),
    ]);
    expect(r2.code).toBe(1);
    expect(r2.err + r2.out).toMatch(/tls\.key: cannot read .*nope\.key \(ENOENT\)/);
    expect(r2.out).not.toContain('BRIDGE_READY');
  });

  it('rejects an unknown adapter and a missing --config', () => {
    const r = bridge([
      'check-config',
      '--config',
      config('adapter.yaml', good().replace('mock: {}', 'x:\n    adapter: telepathy')),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('providers.x.adapter: unknown adapter "telepathy"');
    expect(bridge(['run']).code).toBe(2);
  });

  it('prints help and version', () => {
    const h = bridge(['--help']);
    expect(h.code).toBe(0);
    expect(h.out).toContain('check-config');
    expect(bridge(['--version']).out).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

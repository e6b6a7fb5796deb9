import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestPki, REPO_ROOT, type TestPki } from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
    // A configuration the host cannot serve: exit 2, which the unit does not restart on.
    expect(r2.code).toBe(2);
    expect(r2.err).toMatch(/tls\.key: cannot read .*nope\.key \(ENOENT\)/);
    expect(r2.out).not.toContain('BRIDGE_READY');
  });

  it.each([
    {
      what: 'a JWT key file that is missing',
      edit: (t: string) => t.replace(pki.issuers.control.pubPath, join(dir, 'gone.pub')),
      line: () =>
        `auth.jwt_public_keys: JWT key for issuer "control": cannot read ${join(dir, 'gone.pub')}: ENOENT`,
    },
    {
      what: 'an audit file that cannot be created (under /proc, where mkdir loops on Node 20)',
      edit: (t: string) => `${t}logging:\n  audit_path: /proc/nope/audit.jsonl\n`,
      line: () =>
        'logging.audit_path: cannot create /proc/nope/audit.jsonl: /proc does not take new entries (ENOENT)',
    },
    {
      what: 'a state directory that is a file',
      edit: (t: string) => `${t}sessions:\n  state_dir: ${pki.caPath}\n`,
      line: () => `sessions.state_dir: ${pki.caPath} is not a directory`,
    },
  ])('check-config and run refuse $what with the same line, exit 2', ({ what, edit, line }) => {
    const file = config(`${what.split(' ')[1]}.yaml`, edit(good()));
    const checked = bridge(['check-config', '--config', file]);
    expect(checked.code).toBe(2);
    expect(checked.out).toBe('');
    expect(checked.err).toBe(`${file}: cannot start with it:\n  ${line()}\n`);
    const ran = bridge(['run', '--config', file]);
    expect(ran.code).toBe(2);
    expect(ran.err).toBe(`bridge: cannot start with ${file}:\n  ${line()}\n`);
    expect(ran.out).not.toContain('BRIDGE_READY');
  });

  it('check-config warns about a provider binary it cannot find, and passes: the daemon serves the others', () => {
    const file = config(
      'ghost.yaml',
      good().replace(
        'mock: {}',
        'mock: {}\n  ghost:\n    adapter: claude\n    binary: /nonexistent/claude',
      ),
    );
    const r = bridge(['check-config', '--config', file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ok \(listen 127\.0\.0\.1:0, 2 providers/);
    expect(r.err).toBe(
      '  providers.ghost.binary: binary "/nonexistent/claude" not found: the provider is unavailable until it can be found\n',
    );
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

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, call, captureOutput, connect, REPO_ROOT, within } from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';

// The README's path: `bridge dev` creates a dev PKI and config, and a token
// minted with `bridge-ca jwt-mint` as printed is accepted.
const dir = mkdtempSync(join(tmpdir(), 'bridge-dev-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tsx = (entry: string) => [
  '--conditions=development',
  '--import',
  'tsx',
  join(REPO_ROOT, entry),
];

/** `bridge dev` on an ephemeral port, in `dir`. */
const bridgeDev = () =>
  spawn(
    process.execPath,
    [...tsx('cmd/bridge/src/main.ts'), 'dev', '--dir', dir, '--listen', '127.0.0.1:0'],
    {
      cwd: REPO_ROOT,
      // The bridgectl profile goes to the temp dir, never the user's ~/.config.
      env: { ...process.env, BRIDGE_READY_FD: '1', BRIDGECTL_PROFILES: join(dir, 'profiles.yaml') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );

describe('dev quick start', () => {
  it('creates the dev PKI once, serves the mock agent, and accepts a bridge-ca jwt-mint token', async () => {
    const proc = bridgeDev();
    const output = captureOutput(proc);
    const exited = once(proc, 'exit');
    try {
      const port = Number(
        (await output.waitFor('`bridge dev` to be ready', /BRIDGE_READY port=(\d+)/))[1],
      );
      const out = output.text();
      expect(out).toContain('created a development PKI');
      expect(out).toContain('npm run -s bridge-ca -- jwt-mint --key');
      expect(out).toMatch(/jwt-mint .*--bind-cert \S*client\.crt/);
      for (const f of ['server.key', 'client.key', 'jwt.key', 'profiles.yaml']) {
        expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
      }
      expect(readFileSync(join(dir, 'profiles.yaml'), 'utf8')).toContain(
        `address: 127.0.0.1:${port}`,
      );
      const mint = spawnSync(
        process.execPath,
        [
          ...tsx('cmd/bridge-ca/src/main.ts'),
          'jwt-mint',
          '--key',
          join(dir, 'jwt.key'),
          '--iss',
          'dev',
          '--sub',
          'me',
          '--project',
          'dev',
          '--bind-cert',
          join(dir, 'client.crt'),
        ],
        { cwd: REPO_ROOT, encoding: 'utf8' },
      );
      expect(mint.status).toBe(0);
      const client = connect({
        port,
        caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
        client: {
          certPem: readFileSync(join(dir, 'client.crt'), 'utf8'),
          keyPem: readFileSync(join(dir, 'client.key'), 'utf8'),
        },
      });
      const res = await call(client, (c) => c.listProviders, {}, bearer(mint.stdout.trim()));
      expect(res.providers.map((p) => p.id)).toContain('mock');
      // The mock behind the approval gate, to try permissions with no credentials.
      expect(res.providers.find((p) => p.id === 'mock_ask')?.permissionPolicy).toMatchObject({
        mode: 'ask',
        timeoutMs: 120_000n,
      });
      client.close();
    } finally {
      proc.kill('SIGTERM');
      await within('`bridge dev` to exit', exited, 20_000);
    }
    // A second start reuses the material.
    const before = readFileSync(join(dir, 'ca.crt'), 'utf8');
    const again = bridgeDev();
    const againExited = once(again, 'exit');
    try {
      await captureOutput(again).waitFor('the second `bridge dev` to be ready', /BRIDGE_READY/);
    } finally {
      again.kill('SIGTERM');
      await within('the second `bridge dev` to exit', againExited, 20_000);
    }
    expect(readFileSync(join(dir, 'ca.crt'), 'utf8')).toBe(before);
  });
});

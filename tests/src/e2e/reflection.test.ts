import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type Bridge,
  captureOutput,
  REPO_ROOT,
  startBridge,
  useDaemon,
  within,
} from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';

const BUF = join(REPO_ROOT, 'node_modules/.bin/buf');
const run = promisify(execFile);

/** buf curl's TLS flags for `bridge`'s trusted client certificate (files written next to its PKI). */
function tlsArgs(bridge: Bridge): string[] {
  const cert = join(bridge.pki.dir, 'client.crt');
  const key = join(bridge.pki.dir, 'client.key');
  writeFileSync(cert, bridge.pki.client.certPem);
  writeFileSync(key, bridge.pki.client.keyPem, { mode: 0o600 });
  return ['--protocol', 'grpc', '--cacert', bridge.pki.caPath, '--cert', cert, '--key', key];
}

async function bufCurl(bridge: Bridge, ...args: string[]): Promise<string> {
  const { stdout } = await run(BUF, ['curl', ...tlsArgs(bridge), ...args], { timeout: 20_000 });
  return stdout;
}

const url = (bridge: Bridge, path = '') => `https://127.0.0.1:${bridge.daemon.port}${path}`;

describe('server reflection, read by buf curl over mutual TLS', () => {
  const bridge = useDaemon();

  it('lists the bridge service and the standard health service', async () => {
    const services = (await bufCurl(bridge, '--list-services', url(bridge))).trim().split('\n');
    expect(services).toEqual(
      expect.arrayContaining(['bridge.v1.BridgeService', 'grpc.health.v1.Health']),
    );
  });

  it('resolves grpc.health.v1.Health by reflection: Check answers SERVING with no token', async () => {
    const out = await bufCurl(bridge, url(bridge, '/grpc.health.v1.Health/Check'));
    expect(JSON.parse(out)).toEqual({ status: 'SERVING' });
    const one = await bufCurl(
      bridge,
      '-d',
      '{"service":"bridge.v1.BridgeService"}',
      url(bridge, '/grpc.health.v1.Health/Check'),
    );
    expect(JSON.parse(one)).toEqual({ status: 'SERVING' });
  });

  it('lists the health service methods, including List with its map field', async () => {
    const methods = await bufCurl(bridge, '--list-methods', url(bridge));
    for (const m of ['Check', 'Watch', 'List']) {
      expect(methods).toContain(`grpc.health.v1.Health/${m}`);
    }
    const list = JSON.parse(await bufCurl(bridge, url(bridge, '/grpc.health.v1.Health/List')));
    expect(list.statuses['bridge.v1.BridgeService']).toEqual({ status: 'SERVING' });
  });

  it('calls bridge.v1.BridgeService/Health with a minted token', async () => {
    const token = await bridge.mint();
    const out = await bufCurl(
      bridge,
      '-H',
      `authorization: Bearer ${token}`,
      url(bridge, '/bridge.v1.BridgeService/Health'),
    );
    const health = JSON.parse(out);
    const direct = await bridge.call((c) => c.health, {});
    expect(health.status).toBe('serving');
    expect(health.serverInstanceId).toBe(direct.serverInstanceId);
    expect(health.version).toBe(direct.version);
  });

  it('refuses BridgeService/Health without a token (the health service alone is open)', async () => {
    const err = await bufCurl(bridge, url(bridge, '/bridge.v1.BridgeService/Health')).then(
      () => undefined,
      (e: Error & { stderr?: string }) => e,
    );
    expect(err?.stderr).toMatch(/unauthenticated/i);
  });
});

describe('grpc.health.v1.Health/Watch', () => {
  it('streams NOT_SERVING once the daemon begins shutting down', async () => {
    const bridge = await startBridge();
    const watch = spawn(
      BUF,
      ['curl', ...tlsArgs(bridge), url(bridge, '/grpc.health.v1.Health/Watch')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = captureOutput(watch);
    const watchExited = new Promise((resolve) => watch.once('exit', resolve));
    try {
      await output.waitFor('the watch to report SERVING', /"SERVING"/, 20_000);
      bridge.daemon.proc.kill('SIGTERM');
      await output.waitFor('the watch to report NOT_SERVING', /"NOT_SERVING"/, 20_000);
      await within('the daemon to exit', bridge.daemon.exited, 20_000);
    } finally {
      watch.kill('SIGKILL');
      await watchExited;
      await bridge.close();
    }
  });
});

/**
 * A connection TLS stopped is a TlsRefusalError (an UnavailableError that
 * is never retried), told apart from one the network lost: the daemon
 * refusing this client's certificate (revoked, from an untrusted CA, not
 * for client authentication), and this client refusing the daemon's (not
 * from its CA bundle, without the expected name or address). A target
 * given as an IP address is checked against the certificate's IP SANs,
 * without the DEP0123 warning of an IP sent as the TLS server name.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BridgeClientOptions,
  TlsRefusalError,
  UnavailableError,
} from '@agent-bridge/bridgeclient';
import { createTestPki, startDaemon, type TestPki, useDaemon } from '@agent-bridge/harness';
import { createCA, createCrl, issueCert } from '@agent-bridge/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOptions, closeClients, rejection, sdkClient } from './helpers.js';

let pki: TestPki;
let revoked: { certPem: string; keyPem: string };
beforeAll(async () => {
  pki = await createTestPki();
  revoked = await issueCert({ type: 'client', cn: 'revoked-plane', ca: pki.ca });
  const serialHex = new X509Certificate(revoked.certPem).serialNumber.toLowerCase();
  const crl = join(pki.dir, 'crl.pem');
  writeFileSync(crl, await createCrl({ ca: pki.ca, revoked: [{ serialHex }] }));
});
const bridge = useDaemon(() => ({ pki, config: { tls: { crl: [join(pki.dir, 'crl.pem')] } } }));
afterAll(closeClients);

/** Quick retries: a refusal fails the same way every time. */
const RETRY = { maxAttempts: 2, initialDelayMs: 20, maxDelayMs: 50 };

/** The TlsRefusalError of a Health call of a client with `over` options. */
async function refusal(over: Partial<Omit<BridgeClientOptions, 'jwt'>>): Promise<TlsRefusalError> {
  const c = sdkClient(bridge, { retry: RETRY, ...over });
  return rejection(c.health(), TlsRefusalError, 'UNAVAILABLE', 'Health');
}

const mtls = (over: Partial<BridgeClientOptions['mtls']>) => ({
  ...clientOptions(bridge).mtls,
  ...over,
});

describe('TLS refusals are TlsRefusalErrors, told apart from the network', () => {
  it('the daemon refusing a revoked, untrusted or wrong-purpose client certificate: client_certificate', async () => {
    const server = {
      cert: readFileSync(bridge.pki.serverCertPath, 'utf8'),
      key: readFileSync(bridge.pki.serverKeyPath, 'utf8'),
    };
    for (const cert of [
      { cert: revoked.certPem, key: revoked.keyPem },
      { cert: bridge.pki.rogueClient.certPem, key: bridge.pki.rogueClient.keyPem },
      server,
    ]) {
      const e = await refusal({ mtls: mtls(cert) });
      expect(e).toBeInstanceOf(UnavailableError);
      expect(e).toMatchObject({ reason: 'client_certificate', tlsCode: '' });
      expect(e.details).toBe(
        "the daemon refused this client's certificate: it closed the connection right after the TLS handshake",
      );
    }
  });

  it("this client refusing the daemon's certificate: server_name, server_certificate", async () => {
    const name = await refusal({ mtls: mtls({ serverName: 'evil.example' }) });
    expect(name).toMatchObject({ reason: 'server_name', tlsCode: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(name.details).toBe(
      "the daemon's certificate does not carry the name evil.example: it carries DNS:localhost, IP Address:127.0.0.1",
    );
    const otherCa = await createCA({ name: 'another CA' });
    const untrusted = await refusal({ mtls: mtls({ ca: otherCa.certPem }) });
    expect(untrusted.reason).toBe('server_certificate');
    expect(untrusted.details).toMatch(
      /^the daemon's certificate is not trusted: .+ \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)$/,
    );
  });

  it('a daemon that is not there: an UnavailableError, and a readable text', async () => {
    const c = sdkClient(bridge, { retry: RETRY, target: '127.0.0.1:1' });
    const gone = await rejection(c.health(), UnavailableError, 'UNAVAILABLE', 'Health');
    expect(gone.details).toBe('no connection to the daemon: connect ECONNREFUSED 127.0.0.1:1');
  });
});

describe('a TLS refusal is not retried', () => {
  /** A client of the revoked certificate that would retry a lost network for a long time. */
  const patient = () =>
    sdkClient(bridge, {
      mtls: mtls({ cert: revoked.certPem, key: revoked.keyPem }),
      retry: { maxAttempts: 10, initialDelayMs: 1000, maxDelayMs: 1000 },
      timeouts: { callMs: 60_000, reconnectMs: 60_000 },
    });

  it('a call fails at its first refusal, not after its retries', async () => {
    const started = Date.now();
    await rejection(patient().health(), TlsRefusalError, 'UNAVAILABLE', 'Health');
    // Nine retries would pause about 4.5 s in all (full jitter of 1 s each).
    expect(Date.now() - started).toBeLessThan(1500);
  });

  /** How long `client`'s stream of some session takes to fail, and what it fails with. */
  async function streamFailure(client: ReturnType<typeof patient>) {
    const started = Date.now();
    const stream = client.events('00000000-0000-4000-8000-000000000000');
    const failed = await (async () => {
      for await (const _ of stream) return undefined;
    })().catch((e: unknown) => e);
    return { failed, ms: Date.now() - started };
  }

  it('an event stream ends at once on a certain refusal (a name the daemon lacks)', async () => {
    const named = sdkClient(bridge, {
      mtls: mtls({ serverName: 'evil.example' }),
      timeouts: { reconnectMs: 60_000 },
    });
    const { failed, ms } = await streamFailure(named);
    expect(failed).toBeInstanceOf(TlsRefusalError);
    expect(failed).toMatchObject({ reason: 'server_name' });
    expect(ms).toBeLessThan(1500);
  });

  it('an event stream gives a certificate refused without an alert 10 s, not its reconnect budget', {
    timeout: 60_000,
  }, async () => {
    // A network cut right after a handshake looks the same: a few reconnects, then the refusal.
    const { failed, ms } = await streamFailure(patient());
    expect(failed).toBeInstanceOf(TlsRefusalError);
    expect(failed).toMatchObject({ reason: 'client_certificate', tlsCode: '' });
    expect(ms).toBeGreaterThanOrEqual(10_000);
    expect(ms).toBeLessThan(20_000);
  });
});

describe('a target given as an IP address, without serverName', () => {
  const mtlsByAddress = () => {
    const { serverName: _name, ...rest } = clientOptions(bridge).mtls;
    return rest;
  };

  it('connects with no DEP0123 warning (an IP address sent as the TLS server name)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => warnings.push(`${w.code}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const health = await sdkClient(bridge, { mtls: mtlsByAddress() }).health();
      expect(health.status).toBe('serving');
      // A warning is emitted on a later tick: let some pass before looking.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('still refuses a daemon certificate without that address in its IP SANs', async () => {
    const { certPem, keyPem } = await issueCert({
      type: 'server',
      cn: 'localhost',
      sans: ['localhost'],
      ca: bridge.pki.ca,
    });
    const named = {
      ...bridge.pki,
      serverCertPath: join(bridge.pki.dir, 'named.crt'),
      serverKeyPath: join(bridge.pki.dir, 'named.key'),
    };
    writeFileSync(named.serverCertPath, certPem);
    writeFileSync(named.serverKeyPath, keyPem, { mode: 0o600 });
    const localhostOnly = await startDaemon({ pki: named });
    try {
      const wrong = await refusal({
        target: `127.0.0.1:${localhostOnly.port}`,
        mtls: mtlsByAddress(),
      });
      expect(wrong.reason).toBe('server_name');
      expect(wrong.details).toBe(
        "the daemon's certificate does not carry the address 127.0.0.1: it carries DNS:localhost",
      );
      // By its name, the same daemon answers.
      const byName = sdkClient(bridge, {
        target: `127.0.0.1:${localhostOnly.port}`,
        mtls: mtls({ serverName: 'localhost' }),
      });
      expect((await byName.health()).status).toBe('serving');
    } finally {
      await localhostOnly.stop();
    }
  });
});

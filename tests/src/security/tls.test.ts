/**
 * Transport security: only TLS 1.3 with a valid client certificate from the
 * configured CA reaches the service. A TLS 1.2 client, no client certificate,
 * an untrusted CA, an expired certificate, a server certificate used as a
 * client one, a wrong server name and plaintext (grpc-js, raw HTTP/2,
 * HTTP/1.1) are all refused (UNAVAILABLE for grpc-js clients), and the daemon
 * does nothing for them (no auth decision, no session, no process).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { call, connect, status } from '@agent-bridge/harness';
import { type CertAndKey, issueCert } from '@agent-bridge/pki';
import { BridgeServiceClient } from '@agent-bridge/proto';
import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { expectUnchanged, outcome, snapshot, useWorld } from './helpers.js';
import { hasOpenssl, opensslLeaf } from './tls-helpers.js';

// Every test here is refused from 127.0.0.1, and a client retries its
// handshake until closed: more than the default 20 records a minute would
// be sampled, and a test's own record could be the one counted, not written.
const w = useWorld({ config: { logging: { audit_refused_handshakes_per_peer: 10_000 } } });

/** A client with full control over what it presents. */
function customClient(o: {
  client?: CertAndKey;
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
  minVersion?: 'TLSv1.2' | 'TLSv1.3';
  target?: string;
  insecure?: boolean;
}): BridgeServiceClient {
  const creds = o.insecure
    ? credentials.createInsecure()
    : credentials.createFromSecureContext(
        createSecureContext({
          minVersion: o.minVersion ?? 'TLSv1.3',
          ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}),
          ca: w.pki.ca.certPem,
          ...(o.client ? { cert: o.client.certPem, key: o.client.keyPem } : {}),
        }),
      );
  return new BridgeServiceClient(`127.0.0.1:${w.daemon.port}`, creds, {
    'grpc.ssl_target_name_override': o.target ?? 'localhost',
  });
}

/**
 * A StartSession and a Health call with a valid token over `client` both
 * fail UNAVAILABLE, nothing changed, no call reached the service, and the
 * daemon wrote a `tls` refusal with `reason` for this client (or, with
 * `reason` undefined, none: the client is the one that gave up). This
 * client's records are told apart by its certificate (`cert`), else by the
 * reason: a connection an earlier test's client was still retrying may be
 * refused, and audited, inside this test's window.
 */
async function expectRefused(
  client: BridgeServiceClient,
  reason: string | undefined,
  cert?: CertAndKey,
) {
  const before = await snapshot(w);
  const mark = w.daemon.audit.mark();
  try {
    const results = await Promise.all([
      outcome(call(client, (c) => c.health, {}, w.md, 5000)),
      outcome(
        call(
          client,
          (c) => c.startSession,
          {
            projectId: w.project,
            sessionId: randomUUID(),
            repoPath: w.daemon.repo,
            provider: 'mock',
            agentOpts: {},
          },
          w.md,
          5000,
        ),
      ),
    ]);
    for (const r of results) expect(r.code).toBe(status.UNAVAILABLE);
  } finally {
    client.close();
  }
  if (reason) {
    await w.daemon.audit.waitFor(`tls deny ${reason}`, (r) => r.kind === 'tls', mark);
  }
  await expectUnchanged(w, before);
  const since = w.daemon.audit.since(mark);
  // No call reached the service (the snapshot's own reads aside), no connection was closed.
  expect(
    since.filter(
      (r) =>
        r.kind !== 'tls' &&
        (r.kind !== 'call' || (r.method !== 'ListSessions' && r.method !== 'GetSession')),
    ),
  ).toEqual([]);
  const fingerprint = cert
    ? new X509Certificate(cert.certPem).fingerprint256.replace(/:/g, '').toLowerCase()
    : undefined;
  const mine = since.filter(
    (r) =>
      r.kind === 'tls' && (fingerprint ? r.cert_fingerprint === fingerprint : r.reason === reason),
  );
  if (reason) {
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) {
      expect(r).toMatchObject({ kind: 'tls', outcome: 'deny', reason });
      expect(r.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    }
    return mine[0];
  }
  // The client gave up before sending its certificate (TLS 1.3 sends it
  // after checking the server's): no record names it. Records of other
  // reasons may be an earlier test's client still finishing a handshake.
  expect(since.filter((r) => r.kind === 'tls' && r.cert_fingerprint === fingerprint)).toEqual([]);
  return undefined;
}

describe('grpc-js clients the daemon must refuse (UNAVAILABLE, nothing done)', () => {
  it('control: TLS 1.3 with the trusted client certificate works, nothing refused', async () => {
    const mark = w.daemon.audit.mark();
    const c = customClient({ client: w.pki.client });
    try {
      const h = await call(c, (x) => x.health, {}, w.md);
      expect(h.status).toBe('serving');
      expect(w.daemon.audit.since(mark).filter((r) => r.kind !== 'call')).toEqual([]);
    } finally {
      c.close();
    }
  });

  it('T1 a TLS 1.2-only client → refused, audited as unsupported_protocol', async () => {
    await expectRefused(
      connect({
        port: w.daemon.port,
        caPem: w.pki.ca.certPem,
        client: w.pki.client,
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.2',
      }),
      'unsupported_protocol',
    );
  });

  it('T2 no client certificate → refused, audited as no_client_certificate', async () => {
    await expectRefused(customClient({}), 'no_client_certificate');
  });

  it('T3 a client certificate from an untrusted CA (same CN) → untrusted_issuer, with its serial', async () => {
    const r = await expectRefused(
      customClient({ client: w.pki.rogueClient }),
      'untrusted_issuer',
      w.pki.rogueClient,
    );
    expect(r?.cert_serial).toBe(new X509Certificate(w.pki.rogueClient.certPem).serialNumber);
    expect(r?.cert_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(r?.cert_identity).toBe('control-plane');
  });

  it('T4 an expired client certificate from the trusted CA → cert_expired', async () => {
    const expired = await issueCert({
      type: 'client',
      cn: 'control-plane',
      ca: w.pki.ca,
      notAfter: new Date(Date.now() - 60_000),
    });
    await expectRefused(customClient({ client: expired }), 'cert_expired', expired);
  });

  it('T3 a client certificate that is not yet valid → cert_not_yet_valid', async () => {
    const early = await issueCert({
      type: 'client',
      cn: 'control-plane',
      ca: w.pki.ca,
      now: new Date(Date.now() + 2 * 24 * 3600_000),
      days: 1,
    });
    await expectRefused(customClient({ client: early }), 'cert_not_yet_valid', early);
  });

  it.skipIf(!hasOpenssl)(
    'T3 a leaf marked CA (CA:TRUE, clientAuth) → client_cert_is_ca',
    async () => {
      const leaf = opensslLeaf(w.pki.dir, w.pki.ca, 'control-plane', [
        'basicConstraints=critical,CA:TRUE',
        'keyUsage=critical,digitalSignature,keyCertSign',
        'extendedKeyUsage=clientAuth',
      ]);
      await expectRefused(customClient({ client: leaf }), 'client_cert_is_ca', leaf);
    },
  );

  it.skipIf(!hasOpenssl)(
    'T3 a leaf with no extended key usage → client_cert_not_for_client_auth',
    async () => {
      const leaf = opensslLeaf(w.pki.dir, w.pki.ca, 'control-plane', [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
      ]);
      await expectRefused(customClient({ client: leaf }), 'client_cert_not_for_client_auth', leaf);
    },
  );

  it("T3 the server certificate (serverAuth EKU only) as a client certificate → refused by OpenSSL's purpose check, client_cert_not_for_client_auth", async () => {
    const server: CertAndKey = {
      certPem: readFileSync(w.pki.serverCertPath, 'utf8'),
      keyPem: readFileSync(w.pki.serverKeyPath, 'utf8'),
    };
    await expectRefused(
      customClient({ client: server }),
      'client_cert_not_for_client_auth',
      server,
    );
  });

  it('T6 a server name that is not in the server certificate → the client refuses, no call reaches the daemon', async () => {
    await expectRefused(
      customClient({ client: w.pki.client, target: 'evil.example' }),
      undefined,
      w.pki.client,
    );
  });

  it('T7 a plaintext (insecure) grpc-js client → refused, audited as not_tls', async () => {
    await expectRefused(customClient({ insecure: true }), 'not_tls');
  });
});

describe('raw plaintext HTTP/2 on the port', () => {
  it('T7 raw h2c gets no HTTP/2 SETTINGS frame and is closed, audited as not_tls', async () => {
    const before = await snapshot(w);
    const mark = w.daemon.audit.mark();
    const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
    // An empty SETTINGS frame: length 0, type 4, flags 0, stream 0.
    const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    const received = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const sock = tcpConnect(w.daemon.port, '127.0.0.1', () => {
        sock.write(Buffer.concat([preface, settings]));
      });
      sock.setTimeout(5000, () => {
        sock.destroy();
        reject(new Error('the daemon kept a plaintext connection open for 5 s'));
      });
      sock.on('data', (d) => chunks.push(d));
      sock.on('error', () => undefined);
      sock.on('close', () => resolve(Buffer.concat(chunks)));
    });
    // Nothing, or a TLS alert record (content type 21), never an HTTP/2 frame.
    if (received.length > 0) expect(received[0]).toBe(21);
    expect(received.includes(Buffer.from([0, 0, 4]))).toBe(false);
    expect(received.toString('latin1')).not.toMatch(/HTTP|grpc/i);
    await w.daemon.audit.waitFor('tls deny not_tls', (r) => r.kind === 'tls', mark);
    expect(w.daemon.audit.since(mark)).toMatchObject([{ kind: 'tls', reason: 'not_tls' }]);
    await expectUnchanged(w, before);
  });

  it('T7 an HTTP/1.1 request gets no HTTP response', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const sock = tcpConnect(w.daemon.port, '127.0.0.1', () => {
        sock.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      });
      sock.setTimeout(5000, () => {
        sock.destroy();
        reject(new Error('the daemon kept a plaintext connection open for 5 s'));
      });
      sock.on('data', (d) => {
        buf += d.toString('latin1');
      });
      sock.on('error', () => undefined);
      sock.on('close', () => resolve(buf));
    });
    expect(received).not.toMatch(/HTTP\/1\.[01]/);
  });
});

describe('openssl s_client against the listener', () => {
  const sClient = (extra: string[], who: CertAndKey | undefined, timeout = 10_000) => {
    const args = [
      's_client',
      '-connect',
      `127.0.0.1:${w.daemon.port}`,
      '-CAfile',
      w.pki.caPath,
      '-servername',
      'localhost',
      // grpc-js serves HTTP/2 only: without ALPN h2 the server hangs up on its own.
      ...extra,
    ];
    if (who) {
      const tag = randomUUID();
      const cert = join(w.pki.dir, `${tag}.crt`);
      const key = join(w.pki.dir, `${tag}.key`);
      writeFileSync(cert, who.certPem);
      writeFileSync(key, who.keyPem, { mode: 0o600 });
      args.push('-cert', cert, '-key', key);
    }
    if (!extra.includes('-alpn')) args.push('-alpn', 'h2');
    const r = spawnSync('openssl', args, { input: '', timeout, encoding: 'utf8' });
    return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
  };

  it.skipIf(!hasOpenssl)('control: -tls1_3 with the trusted client certificate succeeds', () => {
    const r = sClient(['-tls1_3'], w.pki.client);
    expect(r.out).toMatch(/New, TLSv1\.3, Cipher is TLS_/);
    expect(r.out).toMatch(/ALPN protocol: h2/);
    expect(r.out).toMatch(/Verify return code: 0 \(ok\)/);
    expect(r.out).not.toMatch(/alert/);
    expect(r.status).toBe(0);
  });

  it.skipIf(!hasOpenssl)('T1 -tls1_2 is refused with a protocol_version alert', () => {
    const r = sClient(['-tls1_2'], w.pki.client);
    expect(r.out).toMatch(/alert protocol version/);
    expect(r.out).toMatch(/SSL alert number 70/);
    expect(r.out).toMatch(/Cipher is \(NONE\)/);
    expect(r.status).not.toBe(0);
  });

  it.skipIf(!hasOpenssl)(
    'T2 -tls1_3 without a client certificate: the server closes right after the handshake',
    () => {
      // Our listener decides after Node's verdict (see tls-listener.ts), so
      // no certificate_required alert: the same close as every TLS 1.3 refusal.
      const r = sClient(['-tls1_3', '-ign_eof'], undefined);
      expect(r.out).toMatch(/unexpected eof while reading|SSL alert number \d+/);
      expect(r.status).not.toBe(0);
      expect(r.status).not.toBeNull();
    },
  );

  it.skipIf(!hasOpenssl)(
    'T3 -tls1_3 with an untrusted-CA client certificate: the server closes right after the handshake',
    () => {
      // With TLS 1.3 the client's handshake "succeeds"
      // and Node then closes the connection (no alert is sent). -ign_eof makes
      // s_client wait for the server instead of leaving on its own EOF.
      const r = sClient(['-tls1_3', '-ign_eof'], w.pki.rogueClient);
      expect(r.out).toMatch(/unexpected eof while reading|SSL alert number \d+/);
      expect(r.status).not.toBe(0);
      expect(r.status).not.toBeNull(); // null: killed by the timeout, i.e. the server kept it open
    },
  );

  it.skipIf(!hasOpenssl)(
    'control: -tls1_3 -ign_eof with the trusted certificate stays open',
    () => {
      // The same probe with a trusted certificate is not closed by the server
      // (s_client is killed by its timeout), so the case above is meaningful.
      const r = sClient(['-tls1_3', '-ign_eof'], w.pki.client, 1500);
      expect(r.out).toMatch(/New, TLSv1\.3/);
      expect(r.out).not.toMatch(/unexpected eof while reading/);
      expect(r.status).toBeNull();
    },
  );

  it.skipIf(!hasOpenssl)(
    'T7 a TLS 1.3 client with a trusted certificate offering only ALPN http/1.1 → refused, audited as no_alpn_h2',
    async () => {
      const mark = w.daemon.audit.mark();
      const r = sClient(['-tls1_3', '-ign_eof', '-alpn', 'http/1.1'], w.pki.client);
      expect(r.status).not.toBe(0);
      expect(r.status).not.toBeNull();
      await w.daemon.audit.waitFor('no_alpn_h2', (x) => x.reason === 'no_alpn_h2', mark);
      expect(w.daemon.audit.since(mark).map((x) => x.reason)).toEqual(['no_alpn_h2']);
    },
  );

  it('the daemon is alive and serving after all of the above', async () => {
    const h = await call(w.client, (c) => c.health, {}, w.md);
    expect(h.status).toBe('serving');
  });
});

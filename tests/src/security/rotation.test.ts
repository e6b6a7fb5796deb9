/**
 * Trust and certificate changes without a restart: a CA rotation through a
 * cross-signed bundle (T8, Teleport's phases as the model) and a server
 * certificate renewal (T11), both picked up by the daemon's file watch.
 */
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { call, status, within } from '@agent-bridge/harness';
import { type CertAndKey, createCA, crossSign, issueCert } from '@agent-bridge/pki';
import { describe, expect, it } from 'vitest';
import { outcome, useWorld } from './helpers.js';
import {
  type CertClient,
  clientWith,
  closureRecord,
  endCode,
  openStream,
  reloaded,
} from './tls-helpers.js';

async function healthCode(c: CertClient): Promise<number | 'ok'> {
  return (await outcome(call(c.client, (x) => x.health, {}, c.md, 5000))).code;
}

/** True while nothing ended the stream. */
async function stillOpen(stream: { ended: Promise<unknown> }): Promise<boolean> {
  return Promise.race([stream.ended.then(() => false), Promise.resolve(true)]);
}

describe('T8 CA rotation with a cross-signed bundle', () => {
  const w = useWorld();

  it('T8 old-CA certificates work while the cross-signed bundle is served; once the old CA leaves the bundle, new handshakes are refused and open connections closed (trust_removed), without a restart', async () => {
    const oldCa = w.pki.ca;
    const newCa = await createCA({ name: 'test CA 2026' });
    const cross = await crossSign({ signer: newCa, targetCaPem: oldCa.certPem });
    const oldLeaf = await issueCert({ type: 'client', cn: 'old-plane', ca: oldCa });
    const newLeaf = await issueCert({ type: 'client', cn: 'new-plane', ca: newCa });
    const old = await clientWith(w, oldLeaf);
    const oldStream = await openStream(w, old, w.ref);
    const pid = w.daemon.pid;

    // Phase update_clients: the new root plus the old CA cross-signed by it.
    writeFileSync(w.pki.caPath, `${newCa.certPem}${cross}`);
    await reloaded(w, 1);
    expect(await stillOpen(oldStream)).toBe(true);
    const oldAgain = await clientWith(
      w,
      await issueCert({ type: 'client', cn: 'old-2', ca: oldCa }),
    );
    expect(await healthCode(oldAgain)).toBe('ok');
    expect(await healthCode(await clientWith(w, newLeaf))).toBe('ok');

    // The old CA leaves the bundle.
    const mark = w.daemon.audit.mark();
    writeFileSync(w.pki.caPath, newCa.certPem);
    await reloaded(w, 2);
    expect(await endCode(oldStream)).toBe(status.UNAVAILABLE);
    expect(await closureRecord(w, mark, old.serial)).toMatchObject({
      kind: 'connection',
      outcome: 'deny',
      reason: 'trust_removed',
      cert_identity: 'old-plane',
    });
    const refusedMark = w.daemon.audit.mark();
    const fresh = await clientWith(w, await issueCert({ type: 'client', cn: 'old-3', ca: oldCa }));
    expect(await healthCode(fresh)).toBe(status.UNAVAILABLE);
    await w.daemon.audit.waitFor('untrusted', (r) => r.kind === 'tls', refusedMark);
    expect(w.daemon.audit.since(refusedMark).filter((r) => r.kind === 'tls')).toMatchObject([
      { reason: 'untrusted_issuer', cert_identity: 'old-3' },
    ]);
    expect(await healthCode(await clientWith(w, newLeaf))).toBe('ok');
    expect(w.daemon.pid).toBe(pid);
    for (const c of [old, oldAgain, fresh]) c.client.close();
  });
});

describe('T11 server certificate renewal', () => {
  const w = useWorld();

  /** The serial of the certificate the daemon presents to a new handshake. */
  const servedSerial = (client: CertAndKey) =>
    within(
      'a TLS handshake with the daemon',
      new Promise<string>((resolve, reject) => {
        const s = tlsConnect(
          {
            host: '127.0.0.1',
            port: w.daemon.port,
            servername: 'localhost',
            ca: w.pki.ca.certPem,
            cert: client.certPem,
            key: client.keyPem,
            ALPNProtocols: ['h2'],
            minVersion: 'TLSv1.3',
          },
          () => {
            resolve(s.getPeerCertificate().serialNumber);
            s.destroy();
          },
        );
        s.on('error', reject);
      }),
    );

  it('T11 after the short-lived server certificate is renewed on disk, new handshakes see the new serial and an open stream survives', async () => {
    const before = await servedSerial(w.pki.client);
    const c = await clientWith(w, w.pki.otherClient);
    const stream = await openStream(w, c, w.ref);
    const renewed = await issueCert({
      type: 'server',
      cn: 'localhost',
      sans: ['localhost', '127.0.0.1'],
      ca: w.pki.ca,
      notAfter: new Date(Date.now() + 120_000),
    });
    writeFileSync(w.pki.serverKeyPath, renewed.keyPem);
    writeFileSync(w.pki.serverCertPath, renewed.certPem);
    await reloaded(w, 1);
    const after = await servedSerial(w.pki.client);
    expect(after).not.toBe(before);
    expect(after).toBe(new X509Certificate(renewed.certPem).serialNumber);
    expect(await stillOpen(stream)).toBe(true);
    // The connection opened before the renewal still carries calls.
    expect(await healthCode(c)).toBe('ok');
    c.client.close();
  });
});

/**
 * Revocation that reaches open connections, and the CRLs the daemon serves.
 * The daemon starts with an (empty) CRL of the test CA. `tls.crl` names a
 * symlink in the PKI directory pointing at a file elsewhere: rewriting that
 * file in place is invisible to the daemon's directory watch (only SIGHUP
 * reloads it), while swapping the symlink is a change the watch sees.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, call, createTestPki, status, type TestPki, waitFor } from '@agent-bridge/harness';
import { createCA, issueCert } from '@agent-bridge/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUnchanged, outcome, snapshot, useWorld } from './helpers.js';
import {
  type CertClient,
  clientWith,
  closureRecord,
  endCode,
  hasOpenssl,
  openStream,
  reloaded,
  writeCrl,
} from './tls-helpers.js';

let pki: TestPki;
let elsewhere: string;
let crlLink: string;
beforeAll(async () => {
  pki = await createTestPki();
  elsewhere = mkdtempSync(join(pki.dir, 'crl-target-'));
  await writeCrl(join(elsewhere, 'crl.pem'), pki.ca, []);
  crlLink = join(pki.dir, 'crl.pem');
  symlinkSync(join(elsewhere, 'crl.pem'), crlLink);
});
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

const w = useWorld(() => ({ pki, config: { tls: { crl: [crlLink] } } }));

const revoked: string[] = [];
let reloads = 0;

/** A new client certificate of the trusted CA, connected, with a stream open on the ref session. */
async function victim(cn: string) {
  const cert = await issueCert({ type: 'client', cn, ca: w.pki.ca });
  const c = await clientWith(w, cert);
  const stream = await openStream(w, c, w.ref);
  return { c, stream, serialHex: c.serial.toLowerCase() };
}

async function healthCode(c: CertClient): Promise<number | 'ok'> {
  return (await outcome(call(c.client, (x) => x.health, {}, c.md, 5000))).code;
}

describe('revocation of an open connection', () => {
  it('T5 a CRL reloaded by SIGHUP closes the revoked certificate’s open StreamEvents (UNAVAILABLE) and audits cert_revoked', async () => {
    const v = await victim('victim-sighup');
    const bystander = await openStream(w, await clientWith(w, w.pki.otherClient), w.ref);
    const mark = w.daemon.audit.mark();
    revoked.push(v.serialHex);
    await writeCrl(join(elsewhere, 'crl.pem'), w.pki.ca, revoked);
    process.kill(w.daemon.pid, 'SIGHUP');
    await reloaded(w, ++reloads);
    expect(await endCode(v.stream)).toBe(status.UNAVAILABLE);
    const r = await closureRecord(w, mark, v.c.serial);
    expect(r).toMatchObject({
      kind: 'connection',
      outcome: 'deny',
      reason: 'cert_revoked',
      cert_identity: 'victim-sighup',
    });
    expect(r.cert_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(r.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    // Only the revoked connection was closed.
    expect(w.daemon.audit.since(mark).filter((x) => x.kind === 'connection')).toHaveLength(1);
    expect(await healthCode(await clientWith(w, w.pki.otherClient))).toBe('ok');
    // The other client's stream on another connection is still open.
    expect(await Promise.race([bystander.ended.then(() => 'ended'), Promise.resolve('open')])).toBe(
      'open',
    );
    v.c.client.close();
  });

  it('T5 a revoked client certificate → refused at the handshake, audited as cert_revoked, nothing changed', async () => {
    const cert = await issueCert({ type: 'client', cn: 'revoked-first', ca: w.pki.ca });
    const c = await clientWith(w, cert);
    revoked.push(c.serial.toLowerCase());
    await writeCrl(join(elsewhere, 'crl.pem'), w.pki.ca, revoked);
    process.kill(w.daemon.pid, 'SIGHUP');
    await reloaded(w, ++reloads);
    const before = await snapshot(w);
    const mark = w.daemon.audit.mark();
    expect(await healthCode(c)).toBe(status.UNAVAILABLE);
    c.client.close();
    await w.daemon.audit.waitFor('tls cert_revoked', (r) => r.kind === 'tls', mark);
    await expectUnchanged(w, before);
    expect(w.daemon.audit.since(mark).filter((r) => r.kind === 'tls')).toMatchObject([
      { kind: 'tls', outcome: 'deny', reason: 'cert_revoked', cert_serial: c.serial },
    ]);
  });

  it('T5 a CRL file swapped without a signal is picked up by the watch and closes the open stream', async () => {
    const v = await victim('victim-watch');
    const mark = w.daemon.audit.mark();
    revoked.push(v.serialHex);
    const next = join(elsewhere, 'crl-next.pem');
    await writeCrl(next, w.pki.ca, revoked);
    const tmpLink = join(w.pki.dir, 'crl.pem.tmp');
    symlinkSync(next, tmpLink);
    renameSync(tmpLink, crlLink);
    expect(await endCode(v.stream)).toBe(status.UNAVAILABLE);
    expect(await closureRecord(w, mark, v.c.serial)).toMatchObject({ reason: 'cert_revoked' });
    reloads++;
    v.c.client.close();
  });

  it('T5 a half-written CRL is refused with an error log; the previous lists stay in force', async () => {
    const next = join(elsewhere, 'crl-next.pem');
    writeFileSync(next, '-----BEGIN X509 CRL-----\nMIIB\n');
    process.kill(w.daemon.pid, 'SIGHUP');
    const seen = () => (w.daemon.output().match(/TLS reload refused/g) ?? []).length;
    await waitFor('the reload to be refused', () => seen() >= 1);
    // Still enforced: the first revoked certificate is refused, a good one is not.
    const again = await issueCert({ type: 'client', cn: 'fine', ca: w.pki.ca });
    expect(await healthCode(await clientWith(w, again))).toBe('ok');
    const lists = await w.call((c) => c.getRevocationLists, {});
    expect(lists.lists[0]?.revokedCount).toBe(revoked.length);
    await writeCrl(next, w.pki.ca, revoked);
  });
});

describe('T10 GetRevocationLists', () => {
  it.skipIf(!hasOpenssl)(
    'T10 returns the CA-signed CRL (openssl crl -verify), nextUpdate in the future, with the revoked serials, refreshed after a revoke and reload',
    async () => {
      const first = await w.call((c) => c.getRevocationLists, {});
      expect(first.lists).toHaveLength(1);
      const l = first.lists[0]!;
      expect(l.issuer).toBe('CN=test CA');
      expect(l.nextUpdate!.getTime()).toBeGreaterThan(Date.now());
      expect(l.thisUpdate!.getTime()).toBeLessThanOrEqual(Date.now());
      expect(l.revokedCount).toBe(revoked.length);
      const der = join(w.scratch, 'served.crl');
      writeFileSync(der, l.der);
      const verify = spawnSync(
        'openssl',
        [
          'crl',
          '-inform',
          'DER',
          '-in',
          der,
          '-CAfile',
          w.pki.caPath,
          '-noout',
          '-verify',
          '-text',
        ],
        { encoding: 'utf8' },
      );
      expect(`${verify.stdout}${verify.stderr}`).toMatch(/verify OK/);
      for (const serial of revoked) {
        expect(verify.stdout.toLowerCase()).toContain(`serial number: ${serial}`);
      }
      // A rogue CA's signature does not verify.
      const rogue = join(w.scratch, 'rogue-ca.crt');
      writeFileSync(rogue, (await createCA({ name: 'test CA' })).certPem);
      const bad = spawnSync(
        'openssl',
        ['crl', '-inform', 'DER', '-in', der, '-CAfile', rogue, '-noout', '-verify'],
        { encoding: 'utf8' },
      );
      expect(`${bad.stdout}${bad.stderr}`).not.toMatch(/verify OK/);

      const more = await issueCert({ type: 'client', cn: 'late', ca: w.pki.ca });
      const serial = (await clientWith(w, more)).serial.toLowerCase();
      revoked.push(serial);
      await writeCrl(join(elsewhere, 'crl-next.pem'), w.pki.ca, revoked);
      process.kill(w.daemon.pid, 'SIGHUP');
      await reloaded(w, ++reloads);
      const after = await w.call((c) => c.getRevocationLists, {});
      expect(after.lists[0]?.revokedCount).toBe(revoked.length);
      writeFileSync(der, after.lists[0]!.der);
      const text = spawnSync('openssl', ['crl', '-inform', 'DER', '-in', der, '-noout', '-text'], {
        encoding: 'utf8',
      });
      expect(text.stdout.toLowerCase()).toContain(`serial number: ${serial}`);
    },
  );

  it('T10 GetRevocationLists is authenticated and audited like every call', async () => {
    const mark = w.daemon.audit.mark();
    const r = await outcome(w.call((c) => c.getRevocationLists, {}, bearer(undefined)));
    expect(r.code).toBe(status.UNAUTHENTICATED);
    expect(w.daemon.audit.since(mark)).toMatchObject([
      { kind: 'call', method: 'GetRevocationLists', outcome: 'deny' },
    ]);
  });
});

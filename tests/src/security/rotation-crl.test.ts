/**
 * The CA rotation of docs/security.md with revocation on (`tls.crl`), end to
 * end and by reload only: `tls.crl` names one file holding a CRL of every
 * CA, so adding the new CA's list and retiring the old CA are file changes.
 * Retiring the old CA from the bundle while its CRL is still in the file
 * must be applied (the list is left out with a warning), not refused as a
 * set that does not belong together; and every list of the file is applied,
 * not only its first.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, createTestPki, status, type TestPki } from '@agent-bridge/harness';
import { type CertAndKey, createCA, createCrl, crossSign, issueCert } from '@agent-bridge/pki';
import { beforeAll, describe, expect, it } from 'vitest';
import { outcome, useWorld } from './helpers.js';
import {
  type CertClient,
  clientWith,
  closureRecord,
  endCode,
  openStream,
  reloaded,
} from './tls-helpers.js';

let pki: TestPki;
let crlPath: string;
const crlOf = (ca: CertAndKey, serials: string[] = []) =>
  createCrl({ ca, revoked: serials.map((serialHex) => ({ serialHex })) });

beforeAll(async () => {
  pki = await createTestPki();
  crlPath = join(pki.dir, 'crls.pem');
  writeFileSync(crlPath, await crlOf(pki.ca));
});

const w = useWorld(() => ({ pki, config: { tls: { crl: [crlPath] } } }));

async function healthCode(c: CertClient): Promise<number | 'ok'> {
  return (await outcome(call(c.client, (x) => x.health, {}, c.md, 5000))).code;
}

/** The messages the daemon logged (its JSON lines' `msg`). */
function logged(): string[] {
  return w.daemon
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

/**
 * The first `tls` refusal of `identity` since `mark`. Filtered by identity:
 * a refused client of an earlier step may still be retrying its handshake.
 */
async function refusal(mark: number, identity: string) {
  const [first] = await w.daemon.audit.waitFor(
    `a tls refusal of ${identity}`,
    (r) => r.kind === 'tls' && r.cert_identity === identity,
    mark,
  );
  return first;
}

describe('CA rotation with tls.crl, by reload only', () => {
  it('introduce, retire with the old CA still in the CRL file, revoke by the new CA', async () => {
    const oldCa = w.pki.ca;
    const newCa = await createCA({ name: 'test CA 2027' });
    const cross = await crossSign({ signer: newCa, targetCaPem: oldCa.certPem });
    const old = await clientWith(
      w,
      await issueCert({ type: 'client', cn: 'old-plane', ca: oldCa }),
    );
    const oldStream = await openStream(w, old, w.ref);
    const pid = w.daemon.pid;

    // Introduce: the new CA's list joins the file first (its CA is not in
    // the bundle yet: left out, with a warning), then the bundle gets the
    // new root and the cross certificate.
    writeFileSync(crlPath, (await crlOf(oldCa)) + (await crlOf(newCa)));
    await reloaded(w, 1);
    expect(logged()).toContain(
      `tls.crl ${crlPath}: the CRL of "CN=test CA 2027" belongs to no CA of tls.ca_bundle (a retired CA?) and is not used`,
    );
    writeFileSync(w.pki.caPath, `${oldCa.certPem}${newCa.certPem}${cross}`);
    await reloaded(w, 2);
    const newLeaf = await issueCert({ type: 'client', cn: 'new-plane', ca: newCa });
    expect(await healthCode(await clientWith(w, newLeaf))).toBe('ok');
    expect(await healthCode(old)).toBe('ok');

    // Retire: the old CA leaves the bundle; its CRL is still in the file.
    const mark = w.daemon.audit.mark();
    writeFileSync(w.pki.caPath, newCa.certPem);
    await reloaded(w, 3);
    expect(logged().filter((m) => m.startsWith('TLS reload refused'))).toEqual([]);
    expect(logged()).toContain(
      `tls.crl ${crlPath}: the CRL of "CN=test CA" belongs to no CA of tls.ca_bundle (a retired CA?) and is not used`,
    );
    expect(await endCode(oldStream)).toBe(status.UNAVAILABLE);
    expect(await closureRecord(w, mark, old.serial)).toMatchObject({
      reason: 'trust_removed',
      cert_identity: 'old-plane',
    });
    const refusedMark = w.daemon.audit.mark();
    const fresh = await clientWith(w, await issueCert({ type: 'client', cn: 'old-2', ca: oldCa }));
    expect(await healthCode(fresh)).toBe(status.UNAVAILABLE);
    expect(await refusal(refusedMark, 'old-2')).toMatchObject({ reason: 'untrusted_issuer' });
    fresh.client.close();
    expect(await healthCode(await clientWith(w, newLeaf))).toBe('ok');

    // The new CA's list is the second of the file: it is applied all the same.
    const gone = await issueCert({ type: 'client', cn: 'new-gone', ca: newCa });
    const goneClient = await clientWith(w, gone);
    expect(await healthCode(goneClient)).toBe('ok');
    const revokeMark = w.daemon.audit.mark();
    writeFileSync(
      crlPath,
      (await crlOf(oldCa)) + (await crlOf(newCa, [goneClient.serial.toLowerCase()])),
    );
    await reloaded(w, 4);
    expect(await closureRecord(w, revokeMark, goneClient.serial)).toMatchObject({
      reason: 'cert_revoked',
      cert_identity: 'new-gone',
    });
    const again = await clientWith(w, gone);
    expect(await healthCode(again)).toBe(status.UNAVAILABLE);
    expect(await refusal(revokeMark, 'new-gone')).toMatchObject({ reason: 'cert_revoked' });
    expect(await healthCode(await clientWith(w, newLeaf))).toBe('ok');
    expect(w.daemon.pid).toBe(pid);
    for (const c of [old, goneClient, again]) c.client.close();
  });
});

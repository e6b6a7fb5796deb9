import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCA } from './create-ca.js';
import { createCrl } from './create-crl.js';
import { crossSign } from './cross-sign.js';
import { issueCert } from './issue-cert.js';
import { toPem } from './pem.js';
import { parseCrlBlocks, readRevocationLists, revokedInChain } from './revocation-list.js';

const DAY = 86_400_000;
const x = (pem: string) => new X509Certificate(pem);

describe('readRevocationLists', () => {
  it('reads dates, number and serials, and ties the list to the CA that signed it', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const ca = await createCA({ name: 'root', now: new Date(now.getTime() - DAY) });
    const other = await createCA({ name: 'other' });
    const pem = await createCrl({
      ca,
      revoked: [{ serialHex: '00AB01' }, { serialHex: '7f' }],
      now,
      days: 2,
      crlNumber: 42n,
    });
    const [list, more] = await readRevocationLists(pem, [other.certPem + ca.certPem]);
    expect(more).toBeUndefined();
    expect(list?.issuer).toBe('CN=root');
    expect(list?.thisUpdate).toEqual(now);
    expect(list?.nextUpdate).toEqual(new Date(now.getTime() + 2 * DAY));
    expect(list?.crlNumber).toBe(42n);
    expect([...(list?.revokedSerials ?? [])].sort()).toEqual(['7f', 'ab01']);
    expect(list?.signer.fingerprint256).toBe(x(ca.certPem).fingerprint256);
    expect(toPem(list?.der as Buffer, 'X509 CRL').trim()).toBe(pem.trim());
  });

  it('reads every CRL of a file', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const text =
      (await createCrl({ ca: a, revoked: [] })) + (await createCrl({ ca: b, revoked: [] }));
    const lists = await readRevocationLists(text, [a.certPem, b.certPem]);
    expect(lists.map((l) => l.issuer)).toEqual(['CN=A', 'CN=B']);
  });

  it('refuses a CRL no CA of the bundle signed, even one naming a CA of the bundle', async () => {
    const real = await createCA({ name: 'root' });
    const lookalike = await createCA({ name: 'root' });
    const crl = await createCrl({ ca: lookalike, revoked: [] });
    await expect(readRevocationLists(crl, [real.certPem], 'crl.pem')).rejects.toThrow(
      'crl.pem: the CRL of "CN=root" is not signed by any CA of the bundle',
    );
  });

  it('with onForeignIssuer, leaves out (and reports) the CRL of a CA no longer in the bundle, and still refuses a lookalike', async () => {
    const kept = await createCA({ name: 'kept' });
    const retired = await createCA({ name: 'retired' });
    const lookalike = await createCA({ name: 'kept' });
    const text =
      (await createCrl({ ca: retired, revoked: [] })) +
      (await createCrl({ ca: kept, revoked: [] }));
    await expect(readRevocationLists(text, [kept.certPem], 'crl.pem')).rejects.toThrow(
      'crl.pem: the CRL of "CN=retired" is not signed by any CA of the bundle',
    );
    const foreign: string[] = [];
    const lists = await readRevocationLists(text, [kept.certPem], 'crl.pem', {
      onForeignIssuer: (issuer) => foreign.push(issuer),
    });
    expect(lists.map((l) => l.issuer)).toEqual(['CN=kept']);
    expect(foreign).toEqual(['CN=retired']);
    await expect(
      readRevocationLists(await createCrl({ ca: lookalike, revoked: [] }), [kept.certPem], 'x', {
        onForeignIssuer: () => {},
      }),
    ).rejects.toThrow('x: the CRL of "CN=kept" is not signed by any CA of the bundle');
  });

  it('refuses text with no CRL, and a CRL block that does not parse', () => {
    expect(() => parseCrlBlocks('nothing here', 'crl.pem')).toThrow(
      'crl.pem holds no X509 CRL block',
    );
    const broken = toPem(Buffer.from('not DER at all'), 'X509 CRL');
    expect(() => parseCrlBlocks(broken, 'crl.pem')).toThrow('crl.pem: a CRL could not be parsed');
  });
});

describe('revokedInChain', () => {
  it('finds a revoked leaf and names the list', async () => {
    const ca = await createCA({ name: 'root' });
    const revoked = await issueCert({ type: 'client', cn: 'gone', ca });
    const kept = await issueCert({ type: 'client', cn: 'kept', ca });
    const serial = x(revoked.certPem).serialNumber;
    const lists = await readRevocationLists(
      await createCrl({ ca, revoked: [{ serialHex: serial }] }),
      [ca.certPem],
    );
    const hit = revokedInChain([x(revoked.certPem), x(ca.certPem)], lists);
    expect(hit?.cert.serialNumber).toBe(serial);
    expect(hit?.list).toBe(lists[0]);
    expect(revokedInChain([x(kept.certPem), x(ca.certPem)], lists)).toBeUndefined();
  });

  it("applies a list only to its signer's certificates: the same serial from another CA is not revoked", async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const leafOfB = await issueCert({ type: 'client', cn: 'c', ca: b });
    const lists = await readRevocationLists(
      await createCrl({ ca: a, revoked: [{ serialHex: x(leafOfB.certPem).serialNumber }] }),
      [a.certPem],
    );
    expect(revokedInChain([x(leafOfB.certPem), x(b.certPem)], lists)).toBeUndefined();
  });

  it('finds a revoked cross certificate above a good leaf, and never checks a root', async () => {
    const oldCa = await createCA({ name: 'old' });
    const newCa = await createCA({ name: 'new' });
    const cross = x(await crossSign({ signer: oldCa, targetCaPem: newCa.certPem }));
    const leaf = x((await issueCert({ type: 'client', cn: 'c', ca: newCa })).certPem);
    const root = x(oldCa.certPem);
    const lists = await readRevocationLists(
      await createCrl({
        ca: oldCa,
        revoked: [{ serialHex: cross.serialNumber }, { serialHex: root.serialNumber }],
      }),
      [oldCa.certPem],
    );
    expect(revokedInChain([leaf, cross, root], lists)?.cert).toBe(cross);
    expect(revokedInChain([root], lists)).toBeUndefined();
  });
});

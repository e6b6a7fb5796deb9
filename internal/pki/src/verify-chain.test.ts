import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CertAndKey } from './cert-and-key.js';
import { createCA } from './create-ca.js';
import { createCrl } from './create-crl.js';
import { crossSign } from './cross-sign.js';
import { inspectText } from './inspect.js';
import { issueCert } from './issue-cert.js';
import { splitPem, toPem } from './pem.js';
import { readDer } from './private/der.js';
import { toSigningKey } from './private/signing-key.js';
import { x509 } from './private/x509.js';
import { readRevocationLists } from './revocation-list.js';
import { verifyChain } from './verify-chain.js';

const DAY = 86_400_000;

/**
 * A CRL as bridge-ca wrote it before it rebuilt them: straight from
 * @peculiar/x509, whose entries without a reason carry an empty
 * crlEntryExtensions SEQUENCE.
 */
async function oldStyleCrl(ca: CertAndKey, serials: string[]): Promise<string> {
  const signer = await toSigningKey(ca.keyPem);
  const crl = await x509.X509CrlGenerator.create({
    issuer: new x509.X509Certificate(ca.certPem).subjectName,
    thisUpdate: new Date(Date.now() - DAY),
    nextUpdate: new Date(Date.now() + DAY),
    signingKey: signer.key,
    signingAlgorithm: signer.algorithm,
    entries: serials.map((serialNumber) => ({ serialNumber, revocationDate: new Date() })),
  });
  return toPem(crl.rawData, 'X509 CRL');
}

describe('verifyChain', () => {
  it('names the expired certificate, and accepts it at a time it was valid', async () => {
    const past = new Date(Date.now() - 10 * DAY);
    const ca = await createCA({ name: 'root', now: new Date(past.getTime() - DAY) });
    const leaf = await issueCert({ type: 'client', cn: 'old', ca, now: past, days: 2 });
    const now = await verifyChain({ certPem: leaf.certPem, bundlePems: [ca.certPem] });
    expect(now).toEqual({ ok: false, reason: expect.stringMatching(/^"CN=old" expired on /) });
    const then = await verifyChain({
      certPem: leaf.certPem,
      bundlePems: [ca.certPem],
      at: new Date(past.getTime() + DAY),
    });
    expect(then.ok).toBe(true);
  });

  it('reports a not-yet-valid certificate', async () => {
    const ca = await createCA({ name: 'root' });
    const leaf = await issueCert({
      type: 'server',
      cn: 'later.example.com',
      ca,
      now: new Date(Date.now() + 5 * DAY),
    });
    const result = await verifyChain({ certPem: leaf.certPem, bundlePems: [ca.certPem] });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('is not valid before') });
  });

  it('enforces pathlen, which pkijs alone does not: a cross cert (pathlen 0) cannot vouch for another CA', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const c = await createCA({ name: 'C' });
    const bByA = await crossSign({ signer: a, targetCaPem: b.certPem });
    const cByB = await crossSign({ signer: b, targetCaPem: c.certPem });
    const leaf = await issueCert({ type: 'client', cn: 'deep', ca: c });
    const result = await verifyChain({
      certPem: leaf.certPem,
      bundlePems: [a.certPem + bByA + cByB],
    });
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining('path length constraint exceeded: "CN=B"'),
    });
    const oneLevel = await verifyChain({ certPem: leaf.certPem, bundlePems: [b.certPem + cByB] });
    expect(oneLevel.ok).toBe(true);
  });

  it('needs a current CRL from every issuer in the path once CRLs are given', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const cross = await crossSign({ signer: a, targetCaPem: b.certPem });
    const leaf = await issueCert({ type: 'client', cn: 'c', ca: b });
    const crlB = await createCrl({ ca: b, revoked: [] });
    const missing = await verifyChain({
      certPem: leaf.certPem,
      bundlePems: [a.certPem + cross],
      crlPems: [crlB],
    });
    expect(missing).toEqual({ ok: false, reason: expect.stringContaining('no CRL from "CN=A"') });
    const staleA = await createCrl({
      ca: a,
      revoked: [],
      now: new Date(Date.now() - 10 * DAY),
      days: 1,
    });
    const stale = await verifyChain({
      certPem: leaf.certPem,
      bundlePems: [a.certPem + cross],
      crlPems: [crlB, staleA],
    });
    expect(stale).toEqual({
      ok: false,
      reason: expect.stringContaining('only an expired CRL from "CN=A"'),
    });
    const crlA = await createCrl({ ca: a, revoked: [] });
    const fine = await verifyChain({
      certPem: leaf.certPem,
      bundlePems: [a.certPem + cross],
      crlPems: [crlB, crlA],
    });
    expect(fine).toMatchObject({ ok: true, chain: ['CN=c', 'CN=B', 'CN=A'] });
  });

  it('reads a CRL whose entries carry an empty crlEntryExtensions, and still checks its signature', async () => {
    const ca = await createCA({ name: 'root' });
    const gone = await issueCert({ type: 'client', cn: 'gone', ca });
    const kept = await issueCert({ type: 'client', cn: 'kept', ca });
    const serial = new X509Certificate(gone.certPem).serialNumber;
    const crl = await oldStyleCrl(ca, [serial]);
    // The fixture is what it claims: its entry ends in a SEQUENCE of length 0.
    const tbs = readDer(splitPem(crl)[0]?.der ?? Buffer.alloc(0)).children[0];
    const entry = tbs?.children[5]?.children[0];
    expect(entry?.children[2]).toMatchObject({ tag: 0x30, content: Buffer.alloc(0) });
    const bundlePems = [ca.certPem];
    expect(await verifyChain({ certPem: gone.certPem, bundlePems, crlPems: [crl] })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^"CN=gone" .* was revoked on .*, reason: unspecified$/),
    });
    expect(await verifyChain({ certPem: kept.certPem, bundlePems, crlPems: [crl] })).toMatchObject({
      ok: true,
      chain: ['CN=kept', 'CN=root'],
    });
    // The same CRL signed by a look-alike CA's key is no CRL of this CA.
    const lookalike = await createCA({ name: 'root' });
    const forged = await oldStyleCrl({ certPem: ca.certPem, keyPem: lookalike.keyPem }, [serial]);
    expect(
      await verifyChain({ certPem: kept.certPem, bundlePems, crlPems: [forged] }),
    ).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no CRL with a valid signature'),
    });
    // The other readers of CRLs take it too.
    const [list] = await readRevocationLists(crl, bundlePems);
    expect([...(list?.revokedSerials ?? [])]).toEqual([serial.toLowerCase()]);
    expect(inspectText(crl)[0]?.fields.revoked).toEqual([
      expect.stringMatching(new RegExp(`^${serial.toLowerCase()} `)),
    ]);
  });

  it('checks the certificate given even when the bundle holds it too, never the one beside it', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const cross = await crossSign({ signer: a, targetCaPem: b.certPem });
    const leaf = await issueCert({ type: 'client', cn: 'c', ca: b });
    const bundlePems = [a.certPem + cross];
    // pkijs alone dropped the root as a duplicate and validated the cross certificate.
    expect(await verifyChain({ certPem: a.certPem, bundlePems })).toEqual({
      ok: true,
      chain: ['CN=A'],
      chainPems: [a.certPem],
      trustAnchor: true,
    });
    expect(await verifyChain({ certPem: a.certPem, bundlePems, purpose: 'client' })).toEqual({
      ok: false,
      reason: '"CN=A" is a CA certificate, not a client certificate',
    });
    const expired = await verifyChain({
      certPem: a.certPem,
      bundlePems,
      at: new Date(Date.now() + 20 * 365 * DAY),
    });
    expect(expired).toEqual({ ok: false, reason: expect.stringMatching(/^"CN=A" expired on /) });
    expect(await verifyChain({ certPem: cross, bundlePems })).toMatchObject({
      ok: true,
      chain: ['CN=B', 'CN=A'],
      trustAnchor: false,
    });
    expect(await verifyChain({ certPem: b.certPem, bundlePems })).toEqual({
      ok: false,
      reason: '"CN=B" is self-signed and is not a root of the bundle',
    });
    // The leaf given twice (once as an "intermediate") is still the leaf checked.
    expect(
      await verifyChain({ certPem: leaf.certPem + leaf.certPem + cross, bundlePems: [a.certPem] }),
    ).toMatchObject({ ok: true, chain: ['CN=c', 'CN=B', 'CN=A'] });
  });

  it('refuses a bundle without a self-signed root', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const cross = await crossSign({ signer: a, targetCaPem: b.certPem });
    const leaf = await issueCert({ type: 'client', cn: 'c', ca: b });
    expect(await verifyChain({ certPem: leaf.certPem, bundlePems: [cross] })).toEqual({
      ok: false,
      reason: 'the bundle holds no self-signed root CA',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { createCA } from './create-ca.js';
import { createCrl } from './create-crl.js';
import { crossSign } from './cross-sign.js';
import { issueCert } from './issue-cert.js';
import { verifyChain } from './verify-chain.js';

const DAY = 86_400_000;

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

import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCA } from './create-ca.js';
import { crossSign } from './cross-sign.js';
import { issueCert } from './issue-cert.js';
import { isSelfSigned, leadsToBundle } from './trust-path.js';

const x = (pem: string) => new X509Certificate(pem);

describe('leadsToBundle', () => {
  it('accepts a leaf of a root in the bundle and refuses one of a root outside it', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const leaf = x((await issueCert({ type: 'client', cn: 'c', ca: a })).certPem);
    expect(leadsToBundle(leaf, [], [x(a.certPem)])).toBe(true);
    expect(leadsToBundle(leaf, [], [x(b.certPem)])).toBe(false);
  });

  it('checks the signature, not only the name: a second CA with the same name is not the issuer', async () => {
    const real = await createCA({ name: 'same' });
    const lookalike = await createCA({ name: 'same' });
    const leaf = x((await issueCert({ type: 'client', cn: 'c', ca: real })).certPem);
    expect(leadsToBundle(leaf, [], [x(lookalike.certPem)])).toBe(false);
    expect(leadsToBundle(leaf, [], [x(lookalike.certPem), x(real.certPem)])).toBe(true);
  });

  it('follows a cross certificate the peer sent, or one the bundle holds, and stops when its signer leaves the bundle', async () => {
    const oldCa = await createCA({ name: 'old' });
    const newCa = await createCA({ name: 'new' });
    const other = await createCA({ name: 'other' });
    const cross = x(await crossSign({ signer: oldCa, targetCaPem: newCa.certPem }));
    const leaf = x((await issueCert({ type: 'client', cn: 'c', ca: newCa })).certPem);
    expect(leadsToBundle(leaf, [cross], [x(oldCa.certPem)])).toBe(true);
    expect(leadsToBundle(leaf, [], [x(oldCa.certPem), cross])).toBe(true);
    expect(leadsToBundle(leaf, [], [x(oldCa.certPem)])).toBe(false);
    expect(leadsToBundle(leaf, [cross], [x(other.certPem)])).toBe(false);
  });

  it('ends on a loop of cross certificates that never reaches a root of the bundle', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const c = await createCA({ name: 'C' });
    const aByB = x(await crossSign({ signer: b, targetCaPem: a.certPem }));
    const bByA = x(await crossSign({ signer: a, targetCaPem: b.certPem }));
    const leaf = x((await issueCert({ type: 'client', cn: 'c', ca: a })).certPem);
    expect(leadsToBundle(leaf, [aByB, bByA], [x(c.certPem)])).toBe(false);
    expect(leadsToBundle(leaf, [aByB, bByA], [x(b.certPem)])).toBe(true);
  });
});

describe('isSelfSigned', () => {
  it('holds for a root only: not for a leaf, nor for a cross certificate carrying a root’s name and key', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    const leaf = await issueCert({ type: 'server', cn: 'localhost', ca: a });
    expect(isSelfSigned(x(a.certPem))).toBe(true);
    expect(isSelfSigned(x(leaf.certPem))).toBe(false);
    expect(isSelfSigned(x(await crossSign({ signer: a, targetCaPem: b.certPem })))).toBe(false);
  });
});

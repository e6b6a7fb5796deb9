import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certificateFacts } from './certificate-facts.js';
import { clientIdentityUri } from './client-identity.js';
import { createCA } from './create-ca.js';
import { issueCert } from './issue-cert.js';

describe('issueCert', () => {
  it('server: CN joins the SANs, serverAuth, CA:FALSE, AKI = CA SKI, 128-bit positive serial', async () => {
    const ca = await createCA({ name: 'root' });
    const leaf = await issueCert({
      type: 'server',
      cn: 'Bridge.Example.com',
      sans: ['10.1.2.3', '::1'],
      ca,
    });
    const facts = certificateFacts(leaf.certPem);
    expect(facts.sans).toEqual({ dns: ['bridge.example.com'], ip: ['10.1.2.3', '::1'], uri: [] });
    expect(facts.kind).toBe('server');
    expect(facts.authorityKeyId).toBe(certificateFacts(ca.certPem).subjectKeyId);
    expect(facts.serialHex.length).toBeGreaterThanOrEqual(28);
    const node = new X509Certificate(leaf.certPem);
    expect(node.ca).toBe(false);
    expect(node.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(Math.round((facts.notAfter.getTime() - Date.now()) / 86_400_000)).toBe(90);
  });

  it('peer: serverAuth and clientAuth, SANs as a server; openssl accepts it for either purpose', async () => {
    const ca = await createCA({ name: 'root' });
    const leaf = await issueCert({ type: 'peer', cn: 'nats-1', sans: ['127.0.0.1'], ca });
    const facts = certificateFacts(leaf.certPem);
    expect(facts.kind).toBe('peer');
    expect(facts.sans).toEqual({ dns: ['nats-1'], ip: ['127.0.0.1'], uri: [] });
    const dir = mkdtempSync(join(tmpdir(), 'peer-'));
    try {
      writeFileSync(join(dir, 'ca.crt'), ca.certPem);
      writeFileSync(join(dir, 'peer.crt'), leaf.certPem);
      for (const purpose of ['sslserver', 'sslclient']) {
        const out = execFileSync(
          'openssl',
          ['verify', '-CAfile', join(dir, 'ca.crt'), '-purpose', purpose, join(dir, 'peer.crt')],
          { encoding: 'utf8' },
        );
        expect(out.trim()).toBe(`${join(dir, 'peer.crt')}: OK`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(issueCert({ type: 'peer', cn: 'no name', ca })).rejects.toThrow(/SAN/);
  });

  it('client: carries the identity URI SAN', async () => {
    const ca = await createCA({ name: 'root' });
    const leaf = await issueCert({ type: 'client', cn: 'prd-manager', ca });
    const facts = certificateFacts(leaf.certPem);
    expect(facts.sans.uri).toEqual(['urn:agent-bridge:client:prd-manager']);
    expect(facts.clientName).toBe('prd-manager');
    expect(() => clientIdentityUri('has space')).toThrow('invalid client name');
  });

  it('notAfter overrides days (for deliberately expired test certificates), capped at the CA', async () => {
    const ca = await createCA({ name: 'root', days: 30 });
    const past = new Date(Date.now() - 60_000);
    const expired = await issueCert({ type: 'client', cn: 'gone', ca, notAfter: past });
    expect(certificateFacts(expired.certPem).notAfter.getTime()).toBe(
      Math.floor(past.getTime() / 1000) * 1000,
    );
    const long = await issueCert({ type: 'client', cn: 'long', ca, days: 400 });
    expect(certificateFacts(long.certPem).notAfter).toEqual(certificateFacts(ca.certPem).notAfter);
  });

  it('refuses a CA key that does not belong to the CA certificate', async () => {
    const a = await createCA({ name: 'A' });
    const b = await createCA({ name: 'B' });
    await expect(
      issueCert({ type: 'client', cn: 'x', ca: { certPem: a.certPem, keyPem: b.keyPem } }),
    ).rejects.toMatchObject({
      code: 'key-mismatch',
    });
  });
});

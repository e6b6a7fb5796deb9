import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadIssuerKeys } from './issuer-keys.js';
import { AuthError, bearerToken, JwtVerifier } from './jwt-verifier.js';

const dir = mkdtempSync(join(tmpdir(), 'auth-'));
const a = generateKeyPairSync('ed25519');
const b = generateKeyPairSync('ed25519');
const pemPath = join(dir, 'a.pub');
writeFileSync(pemPath, a.publicKey.export({ type: 'spki', format: 'pem' }));
const jwksPath = join(dir, 'rot.jwks.json');
writeFileSync(
  jwksPath,
  JSON.stringify({
    keys: [
      { ...a.publicKey.export({ format: 'jwk' }), kid: 'old' },
      { ...b.publicKey.export({ format: 'jwk' }), kid: 'new' },
    ],
  }),
);
const thumb = (() => {
  const { crv, kty, x } = a.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return createHash('sha256').update(JSON.stringify({ crv, kty, x })).digest('base64url');
})();

async function token(key = a.privateKey, iss = 'cp', header: Record<string, unknown> = {}) {
  return new SignJWT({ project_id: 'p1' })
    .setProtectedHeader({ alg: 'EdDSA', ...header })
    .setIssuer(iss)
    .setSubject('svc')
    .setAudience('bridge')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

async function verifier() {
  const keys = await loadIssuerKeys([
    { issuer: 'cp', keyPath: pemPath },
    { issuer: 'rot', keyPath: jwksPath },
  ]);
  return new JwtVerifier({ keys, audience: 'bridge', maxTtlMs: 300_000, clockSkewMs: 30_000 });
}

describe('JwtVerifier key selection', () => {
  it('accepts a token without kid, and one whose kid is the PEM key thumbprint (bridge-ca jwt-mint)', async () => {
    const v = await verifier();
    await expect(v.verify(await token())).resolves.toMatchObject({
      subject: 'svc',
      projectId: 'p1',
      issuer: 'cp',
    });
    await expect(v.verify(await token(a.privateKey, 'cp', { kid: thumb }))).resolves.toMatchObject({
      issuer: 'cp',
    });
    await expect(v.verify(await token(a.privateKey, 'cp', { kid: 'other' }))).rejects.toThrow(
      'token key id (kid) is not known for its issuer',
    );
  });

  it('picks a rotated key by kid, and needs a kid when the issuer has several keys', async () => {
    const v = await verifier();
    await expect(v.verify(await token(b.privateKey, 'rot', { kid: 'new' }))).resolves.toMatchObject(
      { issuer: 'rot' },
    );
    await expect(v.verify(await token(a.privateKey, 'rot', { kid: 'old' }))).resolves.toMatchObject(
      { issuer: 'rot' },
    );
    await expect(v.verify(await token(a.privateKey, 'rot', { kid: 'new' }))).rejects.toThrow(
      'signature is invalid',
    );
    await expect(v.verify(await token(b.privateKey, 'rot'))).rejects.toThrow('has no key id');
  });

  it('never trusts a key of another issuer', async () => {
    const v = await verifier();
    await expect(v.verify(await token(b.privateKey, 'cp'))).rejects.toBeInstanceOf(AuthError);
    await expect(v.verify(await token(a.privateKey, 'unknown'))).rejects.toThrow(
      'issuer is not trusted',
    );
  });

  it('refuses private keys in the key files', async () => {
    const p = join(dir, 'priv.pem');
    writeFileSync(p, a.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await expect(loadIssuerKeys([{ issuer: 'x', keyPath: p }])).rejects.toThrow(
      'holds a private key',
    );
  });
});

describe('bearerToken', () => {
  it('parses exactly one "Bearer <token>" value', () => {
    expect(bearerToken(['Bearer a.b.c'])).toBe('a.b.c');
    expect(() => bearerToken([])).toThrow('missing authorization');
    expect(() => bearerToken(['a.b.c'])).toThrow('must be "Bearer <token>"');
    expect(() => bearerToken(['Bearer a.b.c', 'Bearer a.b.c'])).toThrow('several');
  });
});

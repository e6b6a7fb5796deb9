import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errors, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthError } from './auth-error.js';
import { bearerToken } from './bearer-token.js';
import { loadIssuerKeys } from './issuer-keys.js';
import { JwtVerifier } from './jwt-verifier.js';

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

async function verifier(
  opts: { requireCertBinding?: boolean; clientIdentities?: Map<string, string[]> } = {},
) {
  const keys = await loadIssuerKeys([
    { issuer: 'cp', keyPath: pemPath },
    { issuer: 'rot', keyPath: jwksPath },
  ]);
  return new JwtVerifier({
    keys,
    audience: 'bridge',
    maxTtlMs: 300_000,
    clockSkewMs: 30_000,
    requireCertBinding: false,
    ...opts,
  });
}

/** A stand-in client certificate: binding hashes whatever DER the connection presented. */
const cert = { der: Buffer.from('certificate-A'), identities: ['plane-a', 'spiffe://a/plane'] };
const otherCert = { der: Buffer.from('certificate-B'), identities: ['plane-b'] };
const x5t = (der: Buffer) => createHash('sha256').update(der).digest('base64url');

async function bound(der: Buffer) {
  return new SignJWT({ project_id: 'p1', cnf: { 'x5t#S256': x5t(der) } })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer('cp')
    .setSubject('svc')
    .setAudience('bridge')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(a.privateKey);
}

describe('JwtVerifier key selection', () => {
  it('accepts a token without kid, and one whose kid is the PEM key thumbprint (bridge-ca jwt-mint)', async () => {
    const v = await verifier();
    await expect(v.verify(await token(), cert)).resolves.toMatchObject({
      subject: 'svc',
      projectId: 'p1',
      issuer: 'cp',
    });
    await expect(
      v.verify(await token(a.privateKey, 'cp', { kid: thumb }), cert),
    ).resolves.toMatchObject({
      issuer: 'cp',
    });
    await expect(v.verify(await token(a.privateKey, 'cp', { kid: 'other' }), cert)).rejects.toThrow(
      'token key id (kid) is not known for its issuer',
    );
  });

  it('picks a rotated key by kid, and needs a kid when the issuer has several keys', async () => {
    const v = await verifier();
    await expect(
      v.verify(await token(b.privateKey, 'rot', { kid: 'new' }), cert),
    ).resolves.toMatchObject({ issuer: 'rot' });
    await expect(
      v.verify(await token(a.privateKey, 'rot', { kid: 'old' }), cert),
    ).resolves.toMatchObject({ issuer: 'rot' });
    await expect(v.verify(await token(a.privateKey, 'rot', { kid: 'new' }), cert)).rejects.toThrow(
      'signature is invalid',
    );
    await expect(v.verify(await token(b.privateKey, 'rot'), cert)).rejects.toThrow('has no key id');
  });

  it('never trusts a key of another issuer', async () => {
    const v = await verifier();
    await expect(v.verify(await token(b.privateKey, 'cp'), cert)).rejects.toBeInstanceOf(AuthError);
    await expect(v.verify(await token(a.privateKey, 'unknown'), cert)).rejects.toThrow(
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

describe('JwtVerifier refusals', () => {
  it("keep jose's error as their cause, with their own message unchanged", async () => {
    const v = await verifier();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ project_id: 'p1' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('cp')
      .setSubject('svc')
      .setAudience('bridge')
      .setIssuedAt(now - 600)
      .setExpirationTime(now - 300)
      .sign(a.privateKey);
    const late = await v.verify(expired, cert).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(AuthError);
    expect(late).toMatchObject({ reason: 'token_expired', message: 'token has expired' });
    expect((late as AuthError).cause).toBeInstanceOf(errors.JWTExpired);

    const forged = await v.verify(await token(b.privateKey, 'cp'), cert).catch((e: unknown) => e);
    expect(forged).toMatchObject({
      reason: 'signature_invalid',
      message: 'token signature is invalid',
    });
    expect((forged as AuthError).cause).toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });
});

describe('JwtVerifier certificate binding and identities', () => {
  it('requires cnf.x5t#S256 when binding is required, and always checks it when present', async () => {
    const strict = await verifier({ requireCertBinding: true });
    await expect(strict.verify(await bound(cert.der), cert)).resolves.toMatchObject({
      subject: 'svc',
    });
    await expect(strict.verify(await token(), cert)).rejects.toMatchObject({
      reason: 'cert_binding_missing',
    });
    await expect(strict.verify(await bound(cert.der), otherCert)).rejects.toMatchObject({
      reason: 'cert_binding_mismatch',
    });
    const lax = await verifier({ requireCertBinding: false });
    await expect(lax.verify(await token(), cert)).resolves.toMatchObject({ subject: 'svc' });
    await expect(lax.verify(await bound(cert.der), otherCert)).rejects.toMatchObject({
      reason: 'cert_binding_mismatch',
    });
  });

  it('lets an issuer listing client identities be presented only over those certificates (CN or URI SAN)', async () => {
    const byCn = await verifier({ clientIdentities: new Map([['cp', ['plane-a']]]) });
    await expect(byCn.verify(await token(), cert)).resolves.toMatchObject({ issuer: 'cp' });
    const err = await byCn.verify(await token(), otherCert).catch((e: AuthError) => e);
    expect(err).toMatchObject({ reason: 'identity_not_allowed', forbidden: true });
    const byUri = await verifier({ clientIdentities: new Map([['cp', ['spiffe://a/plane']]]) });
    await expect(byUri.verify(await token(), cert)).resolves.toMatchObject({ issuer: 'cp' });
    // An issuer with no list accepts any trusted certificate.
    const other = await verifier({ clientIdentities: new Map([['rot', ['plane-a']]]) });
    await expect(other.verify(await token(), otherCert)).resolves.toMatchObject({ issuer: 'cp' });
  });

  it('accepts typ JWT (any case, with or without application/) or none, and refuses every other typ', async () => {
    const v = await verifier();
    for (const typ of ['JWT', 'jwt', 'application/jwt']) {
      await expect(v.verify(await token(a.privateKey, 'cp', { typ }), cert)).resolves.toBeTruthy();
    }
    for (const typ of ['at+jwt', 'bridge+jwt', 'JOSE', '']) {
      await expect(v.verify(await token(a.privateKey, 'cp', { typ }), cert)).rejects.toMatchObject({
        reason: 'typ_not_allowed',
      });
    }
  });

  it('reports how long the token holds, skew included', async () => {
    const v = await verifier();
    const got = await v.verify(await token(), cert);
    expect(got.validUntil - got.expiresAt).toBe(30_000);
  });
});

describe('JwtVerifier cache of verified tokens', () => {
  async function cachedVerifier(now: { ms: number }) {
    const keys = new Map(
      await loadIssuerKeys([
        { issuer: 'cp', keyPath: pemPath },
        { issuer: 'rot', keyPath: jwksPath },
      ]),
    );
    const v = new JwtVerifier({
      keys,
      audience: 'bridge',
      maxTtlMs: 300_000,
      clockSkewMs: 30_000,
      requireCertBinding: false,
      now: () => now.ms,
    });
    return { v, keys };
  }

  it('checks a reused token once: the second call over the same certificate needs no key', async () => {
    const now = { ms: Date.now() };
    const { v, keys } = await cachedVerifier(now);
    const t = await token();
    const first = await v.verify(t, cert);
    // Without the issuer's key a full check can only fail: a success is the cache.
    keys.delete('cp');
    await expect(v.verify(t, cert)).resolves.toEqual(first);
    // Another token, or the same one over another certificate, is checked in full.
    await expect(v.verify(await token(), otherCert)).rejects.toMatchObject({
      reason: 'issuer_unknown',
    });
    await expect(v.verify(t, otherCert)).rejects.toMatchObject({ reason: 'issuer_unknown' });
  });

  it('lets a cached token expire exactly when the full check would', async () => {
    const now = { ms: Date.now() };
    const { v } = await cachedVerifier(now);
    const t = await token();
    const { validUntil } = await v.verify(t, cert);
    now.ms = validUntil - 1;
    await expect(v.verify(t, cert)).resolves.toBeTruthy();
    now.ms = validUntil;
    await expect(v.verify(t, cert)).rejects.toMatchObject({ reason: 'token_expired' });
  });

  it('keeps no failure: a refused token is refused again, in full', async () => {
    const now = { ms: Date.now() };
    const { v } = await cachedVerifier(now);
    const bad = await token(a.privateKey, 'cp', { typ: 'at+jwt' });
    await expect(v.verify(bad, cert)).rejects.toMatchObject({ reason: 'typ_not_allowed' });
    await expect(v.verify(bad, cert)).rejects.toMatchObject({ reason: 'typ_not_allowed' });
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

import { createHash, generateKeyPairSync } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  jwtVerify,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { TokenSource } from './token-source.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const thumbprint = createHash('sha256').update('a certificate').digest('base64url');

function source(opts: { ttlMs?: number; bound?: boolean } = {}) {
  let now = 1_700_000_000_000;
  const tokens = new TokenSource(
    pem,
    {
      issuer: 'cp',
      subject: 'svc',
      projectId: 'alpha',
      audience: 'bridge',
      ttlMs: opts.ttlMs ?? 60_000,
      certThumbprint: opts.bound === false ? undefined : thumbprint,
    },
    () => now,
    () => 1, // the largest jitter: renew at exp - ttl/4 - ttl/10
  );
  return { tokens, advance: (ms: number) => (now += ms), now: () => now };
}

describe('TokenSource', () => {
  it('signs EdDSA tokens the daemon accepts: claims, key id, binding to the certificate', async () => {
    const { tokens, now } = source();
    const token = await tokens.token();
    const { payload } = await jwtVerify(token, publicKey, {
      algorithms: ['EdDSA'],
      issuer: 'cp',
      audience: 'bridge',
      currentDate: new Date(now()),
    });
    expect(payload).toMatchObject({
      sub: 'svc',
      project_id: 'alpha',
      cnf: { 'x5t#S256': thumbprint },
      iat: Math.floor(now() / 1000),
      exp: Math.floor(now() / 1000) + 60,
    });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(decodeProtectedHeader(token)).toEqual({
      alg: 'EdDSA',
      typ: 'JWT',
      kid: await calculateJwkThumbprint(await exportJWK(publicKey)),
    });
  });

  it('leaves the binding out when asked', async () => {
    const { tokens } = source({ bound: false });
    expect(decodeJwt(await tokens.token()).cnf).toBeUndefined();
  });

  it('reuses a token until it is due, then mints a new one ahead of its expiry', async () => {
    const { tokens, advance } = source({ ttlMs: 60_000 });
    const first = await tokens.token();
    advance(60_000 - 15_000 - 6_000 - 1); // just before renewAt = exp - ttl/4 - ttl/10
    expect(await tokens.token()).toBe(first);
    advance(1);
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(decodeJwt(second).exp).toBeGreaterThan(decodeJwt(first).exp as number);
  });

  it('shares one minting among concurrent callers', async () => {
    const { tokens } = source();
    const all = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(all).size).toBe(1);
  });

  it('refuses what cannot sign bridge tokens', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const claims = {
      issuer: 'cp',
      subject: 's',
      projectId: 'p',
      audience: 'bridge',
      ttlMs: 60_000,
      certThumbprint: undefined,
    };
    expect(() => new TokenSource(rsa, claims)).toThrow('an Ed25519 key is needed, got rsa');
    expect(() => new TokenSource('not a key', claims)).toThrow('not a readable');
    expect(() => new TokenSource(pem, { ...claims, ttlMs: 1000 })).toThrow('at least 2s');
  });
});

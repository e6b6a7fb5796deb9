/** Hand-built JWS tokens for attacks jose refuses to produce. */
import { createHmac, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export const nowSec = () => Math.floor(Date.now() / 1000);

/** Claims a valid control-plane token would carry, for `project`. */
export function claims(project = 'alpha', over: Record<string, unknown> = {}) {
  const now = nowSec();
  return {
    iss: 'control',
    sub: 'tester',
    aud: 'bridge',
    project_id: project,
    iat: now,
    exp: now + 120,
    ...over,
  };
}

/** Removes the named keys (to test missing claims). */
export function without(obj: Record<string, unknown>, ...keys: string[]) {
  const out = { ...obj };
  for (const k of keys) delete out[k];
  return out;
}

/** Signs with Ed25519 under an arbitrary header and payload. */
export function signEdDSA(
  privatePem: string,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const input = `${b64({ alg: 'EdDSA', ...header })}.${b64(payload)}`;
  const sig = sign(null, Buffer.from(input), createPrivateKey(privatePem));
  return `${input}.${sig.toString('base64url')}`;
}

/** `alg: none` with an empty signature. */
export function algNone(payload: Record<string, unknown>): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`;
}

/** HS256 keyed with `secret` (algorithm confusion: the issuer's public key as the HMAC secret). */
export function hs256(secret: string | Buffer, payload: Record<string, unknown>): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** RS256 / ES256 with a fresh key: an algorithm the daemon does not accept. */
export function foreignAlg(alg: 'RS256' | 'ES256', payload: Record<string, unknown>): string {
  const input = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
  if (alg === 'RS256') {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const sig = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

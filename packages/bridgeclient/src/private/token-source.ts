import { createPrivateKey, createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, SignJWT } from 'jose';
import { type RenewableToken, TokenCache } from './token-cache.js';

export interface TokenClaims {
  issuer: string;
  subject: string;
  projectId: string;
  audience: string;
  ttlMs: number;
  /** `cnf.x5t#S256`: binds every token to this certificate thumbprint. */
  certThumbprint: string | undefined;
  /** The `kid` header; the key's RFC 7638 thumbprint when undefined. */
  keyId?: string | undefined;
}

/** The `typ` of our tokens (the daemon accepts JWT or none), as `bridge-ca jwt-mint` writes it. */
const TOKEN_TYPE = 'JWT';

/**
 * Mints the bearer tokens of one client: signed locally with its Ed25519
 * key, cached, and renewed ahead of expiry at a jittered moment (so a fleet
 * of clients does not renew in lockstep). Concurrent callers share one
 * minting.
 */
export class TokenSource extends TokenCache {
  constructor(
    privateKeyPem: string,
    claims: TokenClaims,
    now: () => number = Date.now,
    random: () => number = Math.random,
  ) {
    const key = signingKey(privateKeyPem);
    if (claims.ttlMs < 2000) throw new TypeError('jwt.ttl must be at least 2s');
    // The key id the daemon may choose the key by: its RFC 7638 thumbprint.
    let kid = claims.keyId;
    super(async () => {
      kid ??= await calculateJwkThumbprint(await exportJWK(createPublicKey(key)));
      return mint(key, kid, claims, now(), random());
    }, now);
  }
}

function signingKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new TypeError('jwt.privateKey: not a readable unencrypted private key', { cause: err });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`jwt.privateKey: an Ed25519 key is needed, got ${key.asymmetricKeyType}`);
  }
  return key;
}

async function mint(
  key: KeyObject,
  kid: string,
  claims: TokenClaims,
  nowMs: number,
  jitter: number,
): Promise<RenewableToken> {
  const { ttlMs, certThumbprint } = claims;
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + Math.floor(ttlMs / 1000);
  const token = await new SignJWT({
    project_id: claims.projectId,
    ...(certThumbprint ? { cnf: { 'x5t#S256': certThumbprint } } : {}),
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: TOKEN_TYPE, kid })
    .setIssuer(claims.issuer)
    .setSubject(claims.subject)
    .setAudience(claims.audience)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(key);
  // Renew with a quarter of the lifetime left, minus up to a tenth more at random.
  const margin = ttlMs / 4 + jitter * (ttlMs / 10);
  return { token, renewAt: exp * 1000 - margin };
}

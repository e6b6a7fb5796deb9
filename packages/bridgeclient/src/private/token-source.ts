import { createPrivateKey, createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, SignJWT } from 'jose';

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

/** Where a client's bearer tokens come from: the local signer, or the caller's own function. */
export interface Tokens {
  /** A valid token: the cached one, or a fresh one once the cached is due for renewal. */
  token(): Promise<string>;
  /** Forgets the cached token: the next call gets a fresh one. */
  renew(): void;
}

/** The `typ` of our tokens (the daemon accepts JWT or none), as `bridge-ca jwt-mint` writes it. */
const TOKEN_TYPE = 'JWT';

/**
 * Mints the bearer tokens of one client: signed locally with its Ed25519
 * key, cached, and renewed ahead of expiry at a jittered moment (so a fleet
 * of clients does not renew in lockstep). Concurrent callers share one
 * minting.
 */
export class TokenSource implements Tokens {
  private readonly key: KeyObject;
  private kid: string | undefined;

  private current: { token: string; renewAt: number } | undefined;
  private minting: Promise<string> | undefined;

  constructor(
    privateKeyPem: string,
    private readonly claims: TokenClaims,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    try {
      this.key = createPrivateKey(privateKeyPem);
    } catch (err) {
      throw new TypeError('jwt.privateKey: not a readable unencrypted private key', {
        cause: err,
      });
    }
    if (this.key.asymmetricKeyType !== 'ed25519') {
      throw new TypeError(
        `jwt.privateKey: an Ed25519 key is needed, got ${this.key.asymmetricKeyType}`,
      );
    }
    if (claims.ttlMs < 2000) throw new TypeError('jwt.ttl must be at least 2s');
  }

  /**
   * Forgets the cached token, so the next call mints a fresh one: the
   * daemon ended a stream because the token that opened it expired, which
   * a client whose clock runs behind the daemon's may not have seen coming.
   */
  renew(): void {
    this.current = undefined;
  }

  /** A valid token: the cached one, or a fresh one once the cached is due for renewal. */
  token(): Promise<string> {
    const cached = this.current;
    if (cached && this.now() < cached.renewAt) return Promise.resolve(cached.token);
    this.minting ??= this.mint().finally(() => {
      this.minting = undefined;
    });
    return this.minting;
  }

  private async mint(): Promise<string> {
    // The key id the daemon may choose the key by: its RFC 7638 thumbprint.
    this.kid ??=
      this.claims.keyId ??
      (await calculateJwkThumbprint(await exportJWK(createPublicKey(this.key))));
    const { ttlMs, certThumbprint } = this.claims;
    const nowMs = this.now();
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + Math.floor(ttlMs / 1000);
    const token = await new SignJWT({
      project_id: this.claims.projectId,
      ...(certThumbprint ? { cnf: { 'x5t#S256': certThumbprint } } : {}),
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: TOKEN_TYPE, kid: this.kid })
      .setIssuer(this.claims.issuer)
      .setSubject(this.claims.subject)
      .setAudience(this.claims.audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.key);
    // Renew with a quarter of the lifetime left, minus up to a tenth more at random.
    const margin = ttlMs / 4 + this.random() * (ttlMs / 10);
    this.current = { token, renewAt: exp * 1000 - margin };
    return token;
  }
}

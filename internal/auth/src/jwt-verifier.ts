import { jwtVerify } from 'jose';
import { AuthError } from './auth-error.js';
import type { IssuerKeys } from './issuer-keys.js';
import { checkBinding } from './private/cert-binding.js';
import { issuerKey } from './private/issuer-key.js';
import { joseError } from './private/jose-errors.js';
import { readUnverified } from './private/unverified-token.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** The client certificate a token is presented over, as the transport saw it. */
export interface PresentedCertificate {
  /** The DER bytes, for `cnf.x5t#S256`. */
  der: Buffer;
  /** Its identities: the subject CN and every URI SAN. */
  identities: readonly string[];
}

/** A verified caller. */
export interface VerifiedCaller {
  subject: string;
  projectId: string;
  issuer: string;
  /** Token expiry, ms since the epoch. */
  expiresAt: number;
  /** Until when the token is accepted: expiry plus the allowed clock skew. */
  validUntil: number;
}

export interface JwtVerifierOptions {
  keys: IssuerKeys;
  /**
   * Per issuer, the certificate identities allowed to present its tokens;
   * an issuer with none listed (or absent) accepts any trusted certificate.
   */
  clientIdentities?: ReadonlyMap<string, readonly string[]>;
  /** Tokens must carry `cnf.x5t#S256` naming the presented certificate. */
  requireCertBinding: boolean;
  audience: string;
  /** Longest allowed `exp - iat`. jose does not check this itself. */
  maxTtlMs: number;
  /** Tolerance for `exp`, `nbf` and `iat` against the clock. */
  clockSkewMs: number;
  /**
   * Tokens remembered once verified, per presenting certificate, until
   * they expire (see VerifiedTokenCache). 0 checks every call in full.
   * Default: 10,000.
   */
  cacheEntries?: number;
  now?: () => number;
}

const DEFAULT_CACHE_ENTRIES = 10_000;
const PROJECT_ID = /^[A-Za-z0-9._:@/-]{1,128}$/;

/**
 * Verifies bearer tokens: EdDSA (Ed25519) only, `typ` absent or `JWT`, the
 * key chosen by `iss` (and `kid` when the issuer has several), a single
 * audience, `exp`/`iat` with small skew, a lifetime of at most `maxTtlMs`,
 * `sub` and `project_id` present; `cnf.x5t#S256` (RFC 8705) matching the
 * presented certificate (required unless binding is switched off), and the
 * certificate being one the issuer's tokens may be presented over.
 */
export class JwtVerifier {
  private readonly now: () => number;
  private readonly cache: VerifiedTokenCache<VerifiedCaller>;

  constructor(private readonly opts: JwtVerifierOptions) {
    this.now = opts.now ?? Date.now;
    this.cache = new VerifiedTokenCache(opts.cacheEntries ?? DEFAULT_CACHE_ENTRIES);
  }

  async verify(token: string, cert: PresentedCertificate): Promise<VerifiedCaller> {
    const cached = this.cache.get(token, cert.der, this.now());
    if (cached) return cached;
    const verified = await this.verifyFully(token, cert);
    this.cache.set(token, cert.der, verified, verified.validUntil);
    return verified;
  }

  private async verifyFully(token: string, cert: PresentedCertificate): Promise<VerifiedCaller> {
    const { header, claims: unverified } = readUnverified(token);
    const iss = unverified.iss;
    if (typeof iss !== 'string' || iss === '') {
      throw new AuthError('claim_invalid', 'token has no issuer (iss)');
    }
    const key = issuerKey(this.opts.keys, iss, header.kid);

    const nowMs = this.now();
    const skewSec = Math.floor(this.opts.clockSkewMs / 1000);
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA', 'Ed25519'],
        issuer: iss,
        audience: this.opts.audience,
        clockTolerance: skewSec,
        currentDate: new Date(nowMs),
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
      }));
    } catch (err) {
      throw joseError(err);
    }
    const { exp, iat, sub, aud } = payload as {
      exp: number;
      iat: number;
      sub: unknown;
      aud: unknown;
    };
    if (Array.isArray(aud) && aud.length !== 1) {
      throw new AuthError('audience_mismatch', 'token must name exactly one audience');
    }
    if (iat > nowMs / 1000 + skewSec) {
      throw new AuthError('issued_in_future', 'token is issued in the future (iat)');
    }
    if ((exp - iat) * 1000 > this.opts.maxTtlMs) {
      throw new AuthError(
        'lifetime_too_long',
        `token lifetime exceeds the maximum of ${Math.round(this.opts.maxTtlMs / 1000)}s`,
      );
    }
    if (typeof sub !== 'string' || sub === '') {
      throw new AuthError('claim_invalid', 'token has no subject (sub)');
    }
    const projectId = (payload as { project_id?: unknown }).project_id;
    if (typeof projectId !== 'string' || !PROJECT_ID.test(projectId)) {
      throw new AuthError('claim_invalid', 'token has no valid project_id claim');
    }
    checkBinding((payload as { cnf?: unknown }).cnf, cert.der, this.opts.requireCertBinding);
    const allowed = this.opts.clientIdentities?.get(iss) ?? [];
    if (allowed.length > 0 && !cert.identities.some((id) => allowed.includes(id))) {
      throw new AuthError(
        'identity_not_allowed',
        `this client certificate may not present tokens of issuer ${JSON.stringify(iss)}`,
        { claims: { iss, sub } },
      );
    }
    return {
      subject: sub,
      projectId,
      issuer: iss,
      expiresAt: exp * 1000,
      validUntil: exp * 1000 + skewSec * 1000,
    };
  }
}

import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { IssuerKeys } from './issuer-keys.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/**
 * Why a call was not authenticated: a stable code for the audit log and
 * metrics. `identity_not_allowed` is the one refusal of a caller whose
 * certificate and token are both valid (the pair is not allowed); every
 * other reason means the caller is not authenticated.
 */
export type AuthReason =
  | 'no_client_certificate'
  | 'token_missing'
  | 'token_malformed'
  | 'token_too_large'
  | 'alg_not_allowed'
  | 'header_not_allowed'
  | 'typ_not_allowed'
  | 'issuer_unknown'
  | 'kid_unknown'
  | 'kid_missing'
  | 'signature_invalid'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'issued_in_future'
  | 'lifetime_too_long'
  | 'audience_mismatch'
  | 'claim_invalid'
  | 'cert_binding_missing'
  | 'cert_binding_mismatch'
  | 'identity_not_allowed';

/** The token was rejected; `message` says why without repeating the token. */
export class AuthError extends Error {
  constructor(
    readonly reason: AuthReason,
    message: string,
    /**
     * Who the verified token names, when the refusal comes after the token
     * was verified (identity_not_allowed): for the audit record, never for
     * the caller's message.
     */
    readonly claims?: { iss: string; sub: string },
  ) {
    super(message);
    this.name = 'AuthError';
  }

  /** True when the caller is authenticated but this certificate may not present this issuer's tokens. */
  get forbidden(): boolean {
    return this.reason === 'identity_not_allowed';
  }
}

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

const MAX_TOKEN_BYTES = 8192;
const DEFAULT_CACHE_ENTRIES = 10_000;
const PROJECT_ID = /^[A-Za-z0-9._:@/-]{1,128}$/;
const FORBIDDEN_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'];

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
    if (token.length > MAX_TOKEN_BYTES) {
      throw new AuthError('token_too_large', 'bearer token is too large');
    }
    if (token.split('.').length !== 3) {
      throw new AuthError('token_malformed', 'bearer token is not a compact JWS');
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    let unverified: ReturnType<typeof decodeJwt>;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      throw new AuthError('token_malformed', 'bearer token is malformed');
    }
    if (header.alg !== 'EdDSA' && header.alg !== 'Ed25519') {
      throw new AuthError('alg_not_allowed', 'token algorithm is not allowed (EdDSA only)');
    }
    for (const h of FORBIDDEN_HEADERS) {
      if (h in header)
        throw new AuthError('header_not_allowed', `token header "${h}" is not allowed`);
    }
    if (header.typ !== undefined && !isPlainJwtType(header.typ)) {
      throw new AuthError('typ_not_allowed', 'token type (typ) must be "JWT" when present');
    }
    const iss = unverified.iss;
    if (typeof iss !== 'string' || iss === '') {
      throw new AuthError('claim_invalid', 'token has no issuer (iss)');
    }
    const candidates = this.opts.keys.get(iss);
    if (!candidates) throw new AuthError('issuer_unknown', 'token issuer is not trusted');
    let key = candidates[0]?.key;
    if (header.kid !== undefined) {
      key = candidates.find((k) => k.kid === header.kid)?.key;
      if (!key) {
        throw new AuthError('kid_unknown', 'token key id (kid) is not known for its issuer');
      }
    } else if (candidates.length > 1) {
      throw new AuthError(
        'kid_missing',
        'token has no key id (kid) and its issuer has several keys',
      );
    }
    if (!key) throw new AuthError('issuer_unknown', 'token issuer is not trusted');

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
    this.checkBinding((payload as { cnf?: unknown }).cnf, cert);
    const allowed = this.opts.clientIdentities?.get(iss) ?? [];
    if (allowed.length > 0 && !cert.identities.some((id) => allowed.includes(id))) {
      throw new AuthError(
        'identity_not_allowed',
        `this client certificate may not present tokens of issuer ${JSON.stringify(iss)}`,
        { iss, sub },
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

  /** RFC 8705 `cnf.x5t#S256`: required unless switched off, and always checked when present. */
  private checkBinding(cnf: unknown, cert: PresentedCertificate): void {
    if (cnf === undefined) {
      if (!this.opts.requireCertBinding) return;
      throw new AuthError(
        'cert_binding_missing',
        'token is not bound to a client certificate (cnf.x5t#S256 is required)',
      );
    }
    const want = (cnf as { 'x5t#S256'?: unknown } | null)?.['x5t#S256'];
    if (typeof want !== 'string') {
      throw new AuthError('cert_binding_missing', 'token cnf claim has no x5t#S256');
    }
    const have = createHash('sha256').update(cert.der).digest('base64url');
    if (want !== have) {
      throw new AuthError('cert_binding_mismatch', 'token is not bound to this client certificate');
    }
  }
}

/** `typ` as RFC 7519 §5.1 recommends it: "JWT", case-insensitive, with or without "application/". */
function isPlainJwtType(typ: unknown): boolean {
  return typeof typ === 'string' && /^(application\/)?jwt$/i.test(typ);
}

function joseError(err: unknown): AuthError {
  if (err instanceof errors.JWTExpired) return new AuthError('token_expired', 'token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    // A claim that is absent or of the wrong type, as opposed to one that failed its check.
    if (err.reason !== 'check_failed') {
      return new AuthError('claim_invalid', `token claim "${err.claim}" is invalid or missing`);
    }
    switch (err.claim) {
      case 'aud':
        return new AuthError('audience_mismatch', 'token audience is not this bridge');
      case 'nbf':
        return new AuthError('token_not_yet_valid', 'token is not valid yet (nbf)');
      case 'iss':
        return new AuthError('issuer_unknown', 'token issuer mismatch');
      default:
        return new AuthError('claim_invalid', `token claim "${err.claim}" is invalid or missing`);
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new AuthError('signature_invalid', 'token signature is invalid');
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return new AuthError('alg_not_allowed', 'token algorithm is not allowed (EdDSA only)');
  }
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) {
    return new AuthError('token_malformed', 'bearer token is malformed');
  }
  if (err instanceof errors.JOSENotSupported) {
    return new AuthError('header_not_allowed', 'token uses an unsupported feature');
  }
  return new AuthError('token_malformed', 'bearer token is invalid');
}

/** Extracts the token from an `authorization` metadata value ("Bearer <jwt>"). */
export function bearerToken(values: readonly unknown[]): string {
  if (values.length === 0) {
    throw new AuthError('token_missing', 'missing authorization metadata (Bearer token)');
  }
  if (values.length > 1) {
    throw new AuthError('token_malformed', 'several authorization metadata values');
  }
  const v = values[0];
  if (typeof v !== 'string') {
    throw new AuthError('token_malformed', 'authorization metadata must be text');
  }
  const m = /^Bearer ([A-Za-z0-9._-]+)$/.exec(v);
  if (!m) throw new AuthError('token_malformed', 'authorization metadata must be "Bearer <token>"');
  return m[1]!;
}

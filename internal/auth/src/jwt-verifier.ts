import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { IssuerKeys } from './issuer-keys.js';

/** The token was rejected; `message` says why without repeating the token. */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}

/** A verified caller. */
export interface VerifiedCaller {
  subject: string;
  projectId: string;
  issuer: string;
  /** Token expiry, ms since the epoch. */
  expiresAt: number;
}

export interface JwtVerifierOptions {
  keys: IssuerKeys;
  audience: string;
  /** Longest allowed `exp - iat`. jose does not check this itself. */
  maxTtlMs: number;
  /** Tolerance for `exp`, `nbf` and `iat` against the clock. */
  clockSkewMs: number;
  now?: () => number;
}

const MAX_TOKEN_BYTES = 8192;
const PROJECT_ID = /^[A-Za-z0-9._:@/-]{1,128}$/;
const FORBIDDEN_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'];

/**
 * Verifies bearer tokens: EdDSA (Ed25519) only, the key chosen by `iss`
 * (and `kid` when the issuer has several), a single audience, `exp`/`iat`
 * with small skew, a lifetime of at most `maxTtlMs`, `sub` and `project_id`
 * present, and, when the token carries `cnf.x5t#S256` (RFC 8705), a match
 * with the client certificate of the connection.
 */
export class JwtVerifier {
  private readonly now: () => number;

  constructor(private readonly opts: JwtVerifierOptions) {
    this.now = opts.now ?? Date.now;
  }

  async verify(token: string, peerCertDer?: Buffer): Promise<VerifiedCaller> {
    if (token.length > MAX_TOKEN_BYTES) throw new AuthError('bearer token is too large');
    if (token.split('.').length !== 3) throw new AuthError('bearer token is not a compact JWS');
    let header: ReturnType<typeof decodeProtectedHeader>;
    let unverified: ReturnType<typeof decodeJwt>;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      throw new AuthError('bearer token is malformed');
    }
    if (header.alg !== 'EdDSA' && header.alg !== 'Ed25519') {
      throw new AuthError(
        `token algorithm ${JSON.stringify(header.alg)} is not allowed (EdDSA only)`,
      );
    }
    for (const h of FORBIDDEN_HEADERS) {
      if (h in header) throw new AuthError(`token header "${h}" is not allowed`);
    }
    const iss = unverified.iss;
    if (typeof iss !== 'string' || iss === '') throw new AuthError('token has no issuer (iss)');
    const candidates = this.opts.keys.get(iss);
    if (!candidates) throw new AuthError('token issuer is not trusted');
    let key = candidates[0]?.key;
    if (header.kid !== undefined) {
      key = candidates.find((k) => k.kid === header.kid)?.key;
      if (!key) throw new AuthError('token key id (kid) is not known for its issuer');
    } else if (candidates.length > 1) {
      throw new AuthError('token has no key id (kid) and its issuer has several keys');
    }
    if (!key) throw new AuthError('token issuer is not trusted');

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
      throw new AuthError(joseMessage(err));
    }
    const { exp, iat, sub, aud } = payload as {
      exp: number;
      iat: number;
      sub: unknown;
      aud: unknown;
    };
    if (Array.isArray(aud) && aud.length !== 1) {
      throw new AuthError('token must name exactly one audience');
    }
    if (iat > nowMs / 1000 + skewSec) throw new AuthError('token is issued in the future (iat)');
    if ((exp - iat) * 1000 > this.opts.maxTtlMs) {
      throw new AuthError(
        `token lifetime exceeds the maximum of ${Math.round(this.opts.maxTtlMs / 1000)}s`,
      );
    }
    if (typeof sub !== 'string' || sub === '') throw new AuthError('token has no subject (sub)');
    const projectId = (payload as { project_id?: unknown }).project_id;
    if (typeof projectId !== 'string' || !PROJECT_ID.test(projectId)) {
      throw new AuthError('token has no valid project_id claim');
    }
    const cnf = (payload as { cnf?: { 'x5t#S256'?: unknown } }).cnf;
    if (cnf !== undefined) {
      const want = cnf?.['x5t#S256'];
      if (typeof want !== 'string') throw new AuthError('token cnf claim has no x5t#S256');
      const have = peerCertDer ? createHash('sha256').update(peerCertDer).digest('base64url') : '';
      if (want !== have) throw new AuthError('token is not bound to this client certificate');
    }
    return { subject: sub, projectId, issuer: iss, expiresAt: exp * 1000 };
  }
}

function joseMessage(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'aud':
        return 'token audience is not this bridge';
      case 'nbf':
        return 'token is not valid yet (nbf)';
      case 'iss':
        return 'token issuer mismatch';
      default:
        return `token claim "${err.claim}" is invalid or missing`;
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token algorithm is not allowed (EdDSA only)';
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid)
    return 'bearer token is malformed';
  if (err instanceof errors.JOSENotSupported) return 'token uses an unsupported feature';
  return 'bearer token is invalid';
}

/** Extracts the token from an `authorization` metadata value ("Bearer <jwt>"). */
export function bearerToken(values: readonly unknown[]): string {
  if (values.length === 0) throw new AuthError('missing authorization metadata (Bearer token)');
  if (values.length > 1) throw new AuthError('several authorization metadata values');
  const v = values[0];
  if (typeof v !== 'string') throw new AuthError('authorization metadata must be text');
  const m = /^Bearer ([A-Za-z0-9._-]+)$/.exec(v);
  if (!m) throw new AuthError('authorization metadata must be "Bearer <token>"');
  return m[1]!;
}

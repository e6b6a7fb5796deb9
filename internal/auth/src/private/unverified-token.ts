import { decodeJwt, decodeProtectedHeader } from 'jose';
import { AuthError } from '../auth-error.js';

const MAX_TOKEN_BYTES = 8192;
const FORBIDDEN_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'];

/** A token's header and claims as the token states them, nothing verified yet. */
export interface UnverifiedToken {
  header: ReturnType<typeof decodeProtectedHeader>;
  claims: ReturnType<typeof decodeJwt>;
}

/**
 * Reads a token's header and claims without checking its signature, and
 * refuses at once what no key could make acceptable: a token too large or
 * not a compact JWS, an algorithm other than EdDSA, a header that points at
 * keys elsewhere (`jku`, `x5u`, `jwk`, `x5c`), a `typ` other than JWT.
 */
export function readUnverified(token: string): UnverifiedToken {
  if (token.length > MAX_TOKEN_BYTES) {
    throw new AuthError('token_too_large', 'bearer token is too large');
  }
  if (token.split('.').length !== 3) {
    throw new AuthError('token_malformed', 'bearer token is not a compact JWS');
  }
  let header: UnverifiedToken['header'];
  let claims: UnverifiedToken['claims'];
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch (err) {
    throw new AuthError('token_malformed', 'bearer token is malformed', { cause: err });
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
  return { header, claims };
}

/** `typ` as RFC 7519 §5.1 recommends it: "JWT", case-insensitive, with or without "application/". */
function isPlainJwtType(typ: unknown): boolean {
  return typeof typ === 'string' && /^(application\/)?jwt$/i.test(typ);
}

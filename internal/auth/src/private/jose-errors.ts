import { errors } from 'jose';
import { AuthError } from '../auth-error.js';

/**
 * What jose's refusal of a token means, as an AuthError with a stable
 * reason and our own message; jose's error is kept as its `cause` (for the
 * log), never shown to the caller.
 */
export function joseError(err: unknown): AuthError {
  const cause = { cause: err };
  if (err instanceof errors.JWTExpired) {
    return new AuthError('token_expired', 'token has expired', cause);
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    // A claim that is absent or of the wrong type, as opposed to one that failed its check.
    if (err.reason !== 'check_failed') {
      return new AuthError(
        'claim_invalid',
        `token claim "${err.claim}" is invalid or missing`,
        cause,
      );
    }
    switch (err.claim) {
      case 'aud':
        return new AuthError('audience_mismatch', 'token audience is not this bridge', cause);
      case 'nbf':
        return new AuthError('token_not_yet_valid', 'token is not valid yet (nbf)', cause);
      case 'iss':
        return new AuthError('issuer_unknown', 'token issuer mismatch', cause);
      default:
        return new AuthError(
          'claim_invalid',
          `token claim "${err.claim}" is invalid or missing`,
          cause,
        );
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new AuthError('signature_invalid', 'token signature is invalid', cause);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return new AuthError('alg_not_allowed', 'token algorithm is not allowed (EdDSA only)', cause);
  }
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) {
    return new AuthError('token_malformed', 'bearer token is malformed', cause);
  }
  if (err instanceof errors.JOSENotSupported) {
    return new AuthError('header_not_allowed', 'token uses an unsupported feature', cause);
  }
  return new AuthError('token_malformed', 'bearer token is invalid', cause);
}

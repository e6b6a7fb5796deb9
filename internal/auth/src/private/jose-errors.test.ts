import { errors } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../auth-error.js';
import { joseError } from './jose-errors.js';

const payload = { iss: 'cp', sub: 'svc', secret_claim: 'do-not-show' };

describe('joseError', () => {
  it("keeps jose's error as the cause of the AuthError, and the message its own", () => {
    const cases = [
      [
        new errors.JWTExpired('"exp" claim timestamp check failed', payload, 'exp', 'check_failed'),
        'token_expired',
        'token has expired',
      ],
      [
        new errors.JWTClaimValidationFailed(
          'unexpected "aud" claim value',
          payload,
          'aud',
          'check_failed',
        ),
        'audience_mismatch',
        'token audience is not this bridge',
      ],
      [
        new errors.JWTClaimValidationFailed(
          'missing required "sub" claim',
          payload,
          'sub',
          'missing',
        ),
        'claim_invalid',
        'token claim "sub" is invalid or missing',
      ],
      [
        new errors.JWSSignatureVerificationFailed(),
        'signature_invalid',
        'token signature is invalid',
      ],
      [
        new errors.JWSInvalid('Invalid Compact JWS'),
        'token_malformed',
        'bearer token is malformed',
      ],
      [new Error('something else'), 'token_malformed', 'bearer token is invalid'],
    ] as const;
    for (const [cause, reason, message] of cases) {
      const err = joseError(cause);
      expect(err).toBeInstanceOf(AuthError);
      expect(err.reason).toBe(reason);
      expect(err.message).toBe(message);
      expect(err.message).not.toContain(cause.message);
      expect(err.cause).toBe(cause);
    }
  });
});

import { AuthError, bearerToken, type JwtVerifier, type VerifiedCaller } from '@agent-bridge/auth';
import { type Caller, exhausted } from '@agent-bridge/bridge';
import type { Metadata } from '@grpc/grpc-js';
import type { CallLimits } from './call-limits.js';
import type { PeerIdentity } from './peer-identity.js';

/** An authenticated caller, and until when its token holds. */
export interface Authenticated {
  caller: Caller;
  /** Token expiry plus the accepted clock skew, ms since the epoch. */
  validUntil: number;
}

/**
 * Authenticates one call: the bearer token in `authorization`, verified
 * against the connection's client certificate (binding and the issuer's
 * allowed identities). A certificate that has spent its failed-auth
 * allowance is refused before its token is looked at, so guessing costs
 * the guesser, not the daemon. Never logs or returns the token.
 */
export async function authenticate(
  verifier: JwtVerifier,
  limits: CallLimits,
  metadata: Metadata,
  peer: PeerIdentity,
): Promise<Authenticated> {
  if (!peer.der)
    throw new AuthError('no_client_certificate', 'no client certificate on the connection');
  const certKey = peer.audit.certFingerprint ?? '';
  const wait = limits.failedAuth.peek(certKey);
  if (wait > 0) {
    throw exhausted(
      `too many failed authentications from this client certificate; retry in ${Math.ceil(wait / 1000)}s`,
      'rate_limited_failed_auth',
      wait,
    );
  }
  let verified: VerifiedCaller;
  try {
    verified = await verifier.verify(bearerToken(metadata.get('authorization')), {
      der: peer.der,
      identities: peer.identities,
    });
  } catch (err) {
    limits.failedAuth.take(certKey);
    throw err instanceof AuthError
      ? err
      : new AuthError('token_malformed', 'bearer token is invalid', { cause: err });
  }
  return {
    caller: {
      projectId: verified.projectId,
      subject: verified.subject,
      identity: { ...peer.audit, iss: verified.issuer, sub: verified.subject },
    },
    validUntil: verified.validUntil,
  };
}

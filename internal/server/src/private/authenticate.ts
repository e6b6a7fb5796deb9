import type { PeerCertificate } from 'node:tls';
import { AuthError, bearerToken, type JwtVerifier, type VerifiedCaller } from '@agent-bridge/auth';
import type { Metadata } from '@grpc/grpc-js';
import type { Logger } from 'pino';

export interface AuthedCall {
  metadata: Metadata;
  getAuthContext(): { sslPeerCertificate?: PeerCertificate };
  getPeer(): string;
}

/**
 * Authenticates one call: the bearer token in `authorization`, checked
 * against the client certificate of the connection when the token is bound
 * to one. Every decision is audited; denials never log the token.
 */
export async function authenticate(
  verifier: JwtVerifier,
  call: AuthedCall,
  method: string,
  audit: Logger,
): Promise<VerifiedCaller> {
  const cert = call.getAuthContext().sslPeerCertificate;
  const peer = {
    addr: call.getPeer(),
    certSerial: cert?.serialNumber,
    certSubject: cert?.subject?.CN,
  };
  try {
    if (!cert?.raw) throw new AuthError('no client certificate on the connection');
    const caller = await verifier.verify(bearerToken(call.metadata.get('authorization')), cert.raw);
    audit.debug(
      {
        audit: 'auth',
        decision: 'allow',
        method,
        sub: caller.subject,
        projectId: caller.projectId,
        ...peer,
      },
      'call authenticated',
    );
    return caller;
  } catch (err) {
    const reason = err instanceof AuthError ? err.message : 'verification failed';
    audit.warn({ audit: 'auth', decision: 'deny', method, reason, ...peer }, 'call rejected');
    throw err instanceof AuthError ? err : new AuthError(reason);
  }
}

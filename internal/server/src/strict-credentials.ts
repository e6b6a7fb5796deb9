import type { SecureContextOptions } from 'node:tls';
import { ServerCredentials } from '@grpc/grpc-js';

/**
 * Server credentials that grpc-js's createSsl cannot express: TLS 1.3 only,
 * a client certificate required and verified, and CRLs. minVersion is put in
 * the secure-context options as well as the server options because a
 * context reload (setSecureContext) only sees the former; without it a
 * reload silently re-enables TLS 1.2.
 */
export class StrictServerCredentials extends ServerCredentials {
  constructor(ctx: SecureContextOptions) {
    super(
      // handshakeTimeout closes connections that never finish TLS (slowloris).
      {
        requestCert: true,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.3',
        handshakeTimeout: 10_000,
      },
      { ...ctx, minVersion: 'TLSv1.3' },
    );
  }

  /** Replaces CA bundle, certificate, key or CRLs for new handshakes. */
  reload(ctx: SecureContextOptions): void {
    this.updateSecureContextOptions({ ...ctx, minVersion: 'TLSv1.3' });
  }

  override _isSecure(): boolean {
    return true;
  }

  override _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

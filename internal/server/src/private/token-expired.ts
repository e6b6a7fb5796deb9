import { Metadata, type ServiceError, status } from '@grpc/grpc-js';

/** Trailer that tells a client its stream ended only because its token expired. */
const AUTH_EXPIRED_TRAILER = 'bridge-auth-expired';

/**
 * A stream outlived the token that opened it. The stream ends with
 * UNAUTHENTICATED and the `bridge-auth-expired` trailer, so a client can
 * tell this from a refused token and resume at once with a fresh one.
 */
export class TokenExpiredDuringStream extends Error {
  constructor() {
    super('the token that opened this stream has expired');
    this.name = 'TokenExpiredDuringStream';
  }

  status(): Partial<ServiceError> & { code: status } {
    const metadata = new Metadata();
    metadata.set(AUTH_EXPIRED_TRAILER, 'true');
    return {
      code: status.UNAUTHENTICATED,
      details:
        'the token that opened this stream has expired: reopen the stream with a fresh token after the last seq received',
      metadata,
    };
  }
}

import type { ServiceError } from '@grpc/grpc-js';
import { BridgeError, fromServiceError, UnavailableError } from '../errors.js';

/**
 * How a connection attempt ended: the session's end, or a failure, after
 * the daemon had answered (`reachable`) and maybe delivered events.
 */
export type Outcome =
  | 'done'
  | { failed: BridgeError; reachable: boolean; delivered: boolean; tokenExpired: boolean };

/** A failure of the stream or of a call made for it, as a BridgeError; anything else is a bug and rethrown. */
export function toBridgeError(err: unknown, method: string): BridgeError {
  if (err instanceof BridgeError) return err;
  if (err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number') {
    return fromServiceError(err as ServiceError, method);
  }
  if (err instanceof Error && /Channel has been shut down/.test(err.message)) {
    return new UnavailableError('UNAVAILABLE', err.message, { method, cause: err });
  }
  throw err;
}

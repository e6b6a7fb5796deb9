import { AuthError } from '@agent-bridge/auth';
import { BridgeError, type ErrorKind, type Redactor } from '@agent-bridge/bridge';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';

/** The one table from domain error kinds to gRPC status codes (documented in bridge.proto and docs/api.md). */
export const STATUS_OF: Record<ErrorKind, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  permission_denied: status.PERMISSION_DENIED,
  failed_precondition: status.FAILED_PRECONDITION,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  out_of_range: status.OUT_OF_RANGE,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
};

/**
 * Turns any thrown value into a gRPC error whose message is safe to show
 * the caller. Messages quote caller input only through the core's
 * `preview`, which redacts; every message is redacted again here with the
 * daemon's rules (`redact`), so one built without `preview` cannot leak a
 * secret either.
 */
export function toServiceError(
  err: unknown,
  redact: Redactor,
): Partial<ServiceError> & { code: status; details: string } {
  if (err instanceof BridgeError) {
    const e = { code: STATUS_OF[err.kind], details: redact(err.message) };
    return err.retryAfterMs === undefined ? e : { ...e, metadata: pushback(err.retryAfterMs) };
  }
  if (err instanceof AuthError) {
    // Both the certificate and the token are valid, but not together: not an authentication failure.
    const code = err.forbidden ? status.PERMISSION_DENIED : status.UNAUTHENTICATED;
    return { code, details: redact(err.message) };
  }
  return { code: status.INTERNAL, details: 'internal error' };
}

/** gRPC's retry pushback (A6): the client waits this long before it tries again. */
function pushback(ms: number): Metadata {
  const md = new Metadata();
  md.set('grpc-retry-pushback-ms', String(Math.max(1, Math.ceil(ms))));
  return md;
}

/**
 * Kinds of failure the core reports. The server maps each kind to one gRPC
 * status code in a single table; the core itself knows nothing about gRPC.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'failed_precondition'
  | 'resource_exhausted'
  | 'out_of_range'
  | 'unavailable'
  | 'internal';

/**
 * A failure with a kind, a message fit for the caller (never secrets) and
 * a stable reason code for the audit log. The reason may say more than the
 * message: a session of another project is "not found" to the caller and
 * `session_of_other_project` in the audit record. What caused it (a
 * provider's or the file system's error) is kept as `cause`, for the
 * daemon's log; callers are shown the message only.
 */
export class BridgeError extends Error {
  readonly reason: string;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    reason?: string,
    /** For a limit that frees up with time: when trying again makes sense. */
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'BridgeError';
    this.reason = reason ?? kind;
  }
}

export const invalid = (m: string, reason?: string, options?: ErrorOptions) =>
  new BridgeError('invalid_argument', m, reason, undefined, options);
export const notFound = (sessionId: string, reason = 'session_not_found') =>
  new BridgeError('not_found', `session ${sessionId} not found`, reason);
export const denied = (m: string, reason?: string, options?: ErrorOptions) =>
  new BridgeError('permission_denied', m, reason, undefined, options);
export const precondition = (m: string, reason?: string, options?: ErrorOptions) =>
  new BridgeError('failed_precondition', m, reason, undefined, options);
export const exhausted = (
  m: string,
  reason?: string,
  retryAfterMs?: number,
  options?: ErrorOptions,
) => new BridgeError('resource_exhausted', m, reason, retryAfterMs, options);
export const outOfRange = (m: string, reason?: string) =>
  new BridgeError('out_of_range', m, reason);
export const unavailable = (m: string, reason?: string, options?: ErrorOptions) =>
  new BridgeError('unavailable', m, reason, undefined, options);

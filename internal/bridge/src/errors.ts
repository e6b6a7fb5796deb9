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

/** A failure with a kind and a message fit for the caller (never secrets). */
export class BridgeError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

export const invalid = (m: string) => new BridgeError('invalid_argument', m);
export const notFound = (sessionId: string) =>
  new BridgeError('not_found', `session ${sessionId} not found`);
export const denied = (m: string) => new BridgeError('permission_denied', m);
export const precondition = (m: string) => new BridgeError('failed_precondition', m);
export const exhausted = (m: string) => new BridgeError('resource_exhausted', m);
export const outOfRange = (m: string) => new BridgeError('out_of_range', m);
export const unavailable = (m: string) => new BridgeError('unavailable', m);

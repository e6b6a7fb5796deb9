import { BridgeError } from '../errors.js';

/** The reason of a stream ended by close(): quietly, what was processed acknowledged. */
export class StreamClosed extends Error {
  constructor() {
    super('the event stream was closed');
    this.name = 'StreamClosed';
  }
}

/** close() ended the stream (not the client, not the caller's signal). */
export const closedQuietly = (lifetime: AbortSignal): boolean =>
  lifetime.reason instanceof StreamClosed;

/**
 * True when the iteration must end: quietly after close(), with the
 * signal's reason after an abort, with an error after the client closed.
 */
export function streamEnded(
  lifetime: AbortSignal,
  clientClosed: AbortSignal,
  sessionId: string,
): boolean {
  if (closedQuietly(lifetime)) return true;
  if (clientClosed.aborted) {
    throw new BridgeError('CANCELLED', `the client was closed (session ${sessionId})`);
  }
  if (lifetime.aborted) throw lifetime.reason;
  return false;
}

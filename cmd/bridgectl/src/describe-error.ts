import { BridgeError, type StatusName, TlsRefusalError } from '@agent-bridge/bridgeclient';
import { EXIT } from './exit-codes.js';

const BY_STATUS: Partial<Record<StatusName, number>> = {
  UNAVAILABLE: EXIT.unavailable,
  DEADLINE_EXCEEDED: EXIT.unavailable,
  UNAUTHENTICATED: EXIT.refused,
  PERMISSION_DENIED: EXIT.refused,
  NOT_FOUND: EXIT.notFound,
};

/** A failed call as bridgectl reports it: the SDK's status decides the exit code. */
export function describeError(error: unknown): { exitCode: number; message: string } | undefined {
  if (error instanceof BridgeError) {
    // A TLS refusal is a refusal of this client (or of the daemon), not a network failure.
    const exitCode =
      error instanceof TlsRefusalError ? EXIT.refused : (BY_STATUS[error.code] ?? EXIT.failed);
    const first = error.message.split('\n')[0] ?? '';
    const message = first.includes(error.code) ? first : `${first} (${error.code})`;
    return {
      exitCode,
      message: exitCode === EXIT.unavailable ? `daemon unreachable: ${message}` : message,
    };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { exitCode: EXIT.interrupted, message: 'interrupted' };
  }
  return undefined;
}

import { BridgeError, type LostSessions } from '@agent-bridge/bridge';

/** How long a unary call waits for the fleet to say where a session is. */
const FLEET_LOOKUP_MS = 10_000;

/** A bound for one look-up in the fleet by a unary call (which carries no signal of its own). */
export const lookupSignal = (): AbortSignal => AbortSignal.timeout(FLEET_LOOKUP_MS);

/**
 * `local()`, or, when this daemon has no session of that id and it is in a
 * fleet, what `elsewhere` makes of the fleet's lost sessions (issue 26).
 * Only "no such session here" falls through: every other refusal stands.
 */
export async function orLost<T>(
  lost: LostSessions | undefined,
  local: () => T | Promise<T>,
  elsewhere: (lost: LostSessions) => Promise<T>,
): Promise<T> {
  try {
    return await local();
  } catch (err) {
    if (lost && err instanceof BridgeError && err.reason === 'session_not_found') {
      return elsewhere(lost);
    }
    throw err;
  }
}

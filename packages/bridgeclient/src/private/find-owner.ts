import {
  type BridgeError,
  DeadlineExceededError,
  FailedPreconditionError,
  NotFoundError,
  UnavailableError,
} from '../errors.js';
import type { CallOptions } from '../options.js';

/** The call that tells whether a daemon has the session. */
interface OwnerCandidate {
  getSession(sessionId: string, opts: CallOptions): Promise<unknown>;
}

/**
 * The daemon that runs `sessionId`, found by asking every daemon at once
 * and taking the first that has it. A refusal that holds on any daemon (a
 * malformed id, a refused token) fails at once; the errors of the daemons
 * that did not have it or did not answer are the cause of the one thrown.
 */
export async function findOwner(
  clients: ReadonlyMap<string, OwnerCandidate>,
  sessionId: string,
  ask: CallOptions,
): Promise<string> {
  const silent: string[] = [];
  const refusals: BridgeError[] = [];
  const daemon = await new Promise<string | undefined>((resolve, reject) => {
    let pending = clients.size;
    if (pending === 0) resolve(undefined);
    for (const [name, client] of clients) {
      client.getSession(sessionId, ask).then(
        () => resolve(name),
        (err: unknown) => {
          if (err instanceof UnavailableError || err instanceof DeadlineExceededError) {
            silent.push(name);
            refusals.push(err);
          } else if (err instanceof NotFoundError || err instanceof FailedPreconditionError) {
            // A daemon of a fleet on NATS that knows the session runs on another says so (FAILED_PRECONDITION).
            refusals.push(err);
          } else reject(err);
          if (--pending === 0) resolve(undefined);
        },
      );
    }
  });
  if (daemon) return daemon;
  // Every daemon's answer, not only the first: the session may be on any of those that failed.
  const cause = new AggregateError(refusals, `the answers to GetSession ${sessionId}`);
  if (silent.length > 0) {
    throw new UnavailableError(
      'UNAVAILABLE',
      `session ${sessionId} is on no daemon that answered; no answer from: ${silent.join(', ')}`,
      { cause },
    );
  }
  throw new NotFoundError('NOT_FOUND', `session ${sessionId} is on no daemon of the fleet`, {
    cause,
  });
}

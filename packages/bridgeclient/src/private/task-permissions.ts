import { FailedPreconditionError } from '../errors.js';
import type { CallOptions } from '../options.js';
import type { PermissionDecision, PermissionRequest } from '../permissions.js';
import type { TaskPermissions } from '../run-task.js';
import { callback } from './caller-error.js';

/** The call that answers a permission request, on the daemon that runs the task. */
export interface PermissionClient {
  respondPermission(
    sessionId: string,
    requestId: string,
    decision: PermissionDecision,
    opts?: CallOptions,
  ): Promise<number>;
}

/**
 * Answers a request that waits. The first answer wins: one already given
 * (by another client, the timeout, a stop) is no failure of the task.
 */
export async function answer(
  client: PermissionClient,
  request: PermissionRequest,
  permissions: TaskPermissions,
  signal: AbortSignal,
): Promise<void> {
  const decision =
    typeof permissions === 'function'
      ? await untilAborted(
          callback(() => permissions(request)),
          signal,
        )
      : permissions;
  if (decision === undefined) return;
  try {
    await client.respondPermission(request.sessionId, request.requestId, decision, { signal });
  } catch (err) {
    if (err instanceof FailedPreconditionError) return;
    throw err;
  }
}

/** `p`, or a rejection with the signal's reason once it aborts (a decision may take a person's time). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

import { FailedPreconditionError, ResourceExhaustedError, UnavailableError } from '../errors.js';
import type { DaemonStatus } from '../fleet-types.js';
import { providerRefusal } from './provider-refusal.js';

/**
 * Of the probed daemons (all of the fleet's, or only `only`), those that
 * can take a session of `provider`, the one with the most room first.
 * None: why, as the error placement fails with.
 */
export function candidates(
  statuses: DaemonStatus[],
  provider: string,
  only: string | undefined,
): string[] {
  const serving = statuses.flatMap((s) =>
    s.reachable && s.health.status === 'serving' ? [s] : [],
  );
  const offering = serving.filter((s) => s.providers.some((p) => p.id === provider && p.available));
  const usable = offering.filter((s) => s.health.freeCapacity > 0);
  usable.sort((a, b) => b.health.freeCapacity - a.health.freeCapacity);
  if (usable.length > 0) return usable.map((s) => s.daemon);
  const where = only === undefined ? 'no daemon of the fleet' : `daemon ${JSON.stringify(only)}`;
  if (serving.length === 0) {
    throw new UnavailableError('UNAVAILABLE', `${where} is reachable and serving`);
  }
  if (offering.length === 0) {
    throw new FailedPreconditionError(
      'FAILED_PRECONDITION',
      `${where} that answers offers provider ${JSON.stringify(provider)} available`,
    );
  }
  throw new ResourceExhaustedError(
    'RESOURCE_EXHAUSTED',
    `${where} that offers provider ${JSON.stringify(provider)} has room for another session of this project`,
  );
}

/** Why a daemon cannot take a task of `provider`, as placement sees it; undefined when it can. */
export function unfitFor(s: DaemonStatus, provider: string): string | undefined {
  if (!s.reachable) return `unreachable (${s.error.message})`;
  if (s.health.status !== 'serving') return `not serving (${s.health.status})`;
  const refusal = providerRefusal(s.providers, provider);
  if (refusal !== undefined) return refusal;
  return s.health.freeCapacity > 0 ? undefined : 'no room for another session of this project';
}

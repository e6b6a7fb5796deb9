import { FailedPreconditionError, ResourceExhaustedError, UnavailableError } from '../errors.js';
import type { DiscoveredDaemon } from '../fleet-discovery.js';

/**
 * Of the daemons in the directory (or only `only`), those that offer
 * `provider` and have room, the one with the most room first: placement
 * read from the directory, no daemon probed. None: why, as the error
 * placement fails with.
 */
export function placeByDirectory(
  daemons: readonly DiscoveredDaemon[],
  provider: string,
  only: string | undefined,
): string[] {
  const pool = only === undefined ? daemons : daemons.filter((d) => d.id === only);
  const room = (d: DiscoveredDaemon) =>
    d.maxSessions === 0 ? Number.POSITIVE_INFINITY : d.maxSessions - d.sessions;
  const offering = pool.filter((d) => d.providers.includes(provider));
  const usable = offering
    .filter((d) => room(d) > 0)
    .sort((a, b) => room(b) - room(a) || a.sessions - b.sessions || a.id.localeCompare(b.id));
  if (usable.length > 0) return usable.map((d) => d.id);
  const where =
    only === undefined ? "no daemon in the fleet's directory" : `daemon ${JSON.stringify(only)}`;
  if (pool.length === 0) {
    throw new UnavailableError(
      'UNAVAILABLE',
      only === undefined
        ? `${where}: none has announced itself`
        : `${where} is not in the fleet's directory`,
    );
  }
  if (offering.length === 0) {
    throw new FailedPreconditionError(
      'FAILED_PRECONDITION',
      `${where} offers provider ${JSON.stringify(provider)}`,
    );
  }
  throw new ResourceExhaustedError(
    'RESOURCE_EXHAUSTED',
    `${where} that offers provider ${JSON.stringify(provider)} has room for another session`,
  );
}

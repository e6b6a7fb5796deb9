import {
  BridgeError,
  type SessionElsewhere,
  type SessionRecord,
  type SessionsElsewhere,
  unavailable,
} from '@agent-bridge/bridge';
import type {
  FleetDirectory,
  FleetEvents,
  FleetSessionRecord,
  FleetSessions,
  SessionOwner,
} from '@agent-bridge/jetstream';
import { joined } from './join-fleet.js';

/** What the fleet's sessions are read from. */
interface FleetParts {
  events: FleetEvents;
  sessions: FleetSessions;
  directory: FleetDirectory;
}

/**
 * The fleet's sessions as the core sees them from one daemon: a session's
 * record from the fleet's KV bucket, whether its daemon is still in the
 * directory (the same daemon with the same history), its events from the
 * fleet's stream. This daemon's own sessions are not elsewhere.
 */
export function fleetElsewhere(
  self: SessionOwner,
  joining: Promise<FleetParts>,
): SessionsElsewhere {
  const isSelf = (o: SessionOwner) =>
    o.daemonId === self.daemonId && o.historyId === self.historyId;
  const liveOwners = async (fleet: FleetParts) =>
    new Set((await fleet.directory.live()).map((d) => `${d.id}\n${d.historyId}`));
  const held = async (
    fleet: FleetParts,
    kept: FleetSessionRecord<SessionRecord>,
    live: Set<string>,
    signal: AbortSignal,
  ): Promise<SessionElsewhere> => {
    const { sessionId, projectId, owner, record } = kept;
    const tail = await fleet.events.tail(projectId, sessionId, signal);
    return {
      sessionId,
      projectId,
      home: { ...owner, live: live.has(`${owner.daemonId}\n${owner.historyId}`) },
      request: record.request,
      repoPath: record.repoPath,
      status: record.status,
      createdAt: record.createdAt,
      facts: record.facts,
      lastSeq: tail?.seq ?? 0,
      events: (afterSeq, sig) => fleet.events.read(projectId, sessionId, afterSeq, sig),
      cursor: async (subscriberId) =>
        (await fleet.sessions.cursor(sessionId, subscriberId))?.ackSeq,
      saveCursor: (subscriberId, ackSeq) =>
        fleet.sessions.putCursor(sessionId, { subscriberId, ackSeq, touchedAt: Date.now() }),
    };
  };
  return {
    find: (sessionId, signal) =>
      reachable(joining, signal, async (fleet) => {
        const kept = await fleet.sessions.get<SessionRecord>(sessionId);
        if (!kept || isSelf(kept.owner)) return undefined;
        return held(fleet, kept, await liveOwners(fleet), signal);
      }),
    lost: (projectId, signal) =>
      reachable(joining, signal, async (fleet) => {
        const live = await liveOwners(fleet);
        const all = await fleet.sessions.list<SessionRecord>();
        const gone = all.filter(
          (k) =>
            k.projectId === projectId &&
            !isSelf(k.owner) &&
            !live.has(`${k.owner.daemonId}\n${k.owner.historyId}`),
        );
        return Promise.all(gone.map((k) => held(fleet, k, live, signal)));
      }),
  };
}

/**
 * `use(fleet)` once the daemon has joined; what fails on the way (not
 * joined before `signal`, NATS away, no answer) is UNAVAILABLE, saying so.
 */
async function reachable<T>(
  joining: Promise<FleetParts>,
  signal: AbortSignal,
  use: (fleet: FleetParts) => Promise<T>,
): Promise<T> {
  try {
    return await use(await joined(joining, signal));
  } catch (err) {
    if (err instanceof BridgeError) throw err;
    throw unavailable(
      `the fleet's sessions cannot be read now (NATS: ${(err as Error)?.message ?? err}): try again`,
      'fleet_unreachable',
      { cause: err },
    );
  }
}

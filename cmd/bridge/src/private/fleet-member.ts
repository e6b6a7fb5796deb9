import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  type EventCodec,
  LostSessions,
  type SessionManager,
  type SessionStore,
  systemClock,
} from '@agent-bridge/bridge';
import type { FleetConfig } from '@agent-bridge/config';
import {
  fleetElsewhere,
  joinFleet,
  type ReplicaSourceStore,
  replicatedStore,
} from '@agent-bridge/fleet';
import type { FleetReplication } from '@agent-bridge/metrics';
import type { Logger } from 'pino';

const LIVE = new Set(['STARTING', 'RUNNING', 'STOPPING']);

/** A daemon's part in its fleet (docs/operations.md, "Fleet"). */
export interface FleetMember {
  /** The embedded store with the fleet beside it: what the daemon runs on. */
  readonly store: SessionStore;
  /** The fleet's sessions whose daemon is gone, for the server. */
  readonly lost: LostSessions;
  /** For metrics. */
  replication(): FleetReplication;
  /** Announces the daemon in the fleet's directory until `close`. */
  announce(daemon: {
    manager: SessionManager;
    maxSessions: number;
    version: string;
  }): Promise<void>;
  /** Leaves the directory, lets the replicas finish what they can within `graceMs`, closes the connection. */
  close(graceMs: number): Promise<void>;
}

/** Joins the fleet `config` names, beside the embedded store `store`. */
export async function joinAsMember(
  config: FleetConfig,
  store: ReplicaSourceStore,
  codec: EventCodec,
  logger: Logger,
): Promise<FleetMember> {
  const lifetime = new AbortController();
  const counts = { published: 0, failures: 0, disconnects: 0 };
  const daemonId =
    config.daemonId ||
    hostname()
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .slice(0, 64);
  const fleet = await joinFleet({
    nats: {
      servers: config.nats.servers,
      tls: {
        ca: readFileSync(config.nats.caBundle, 'utf8'),
        cert: readFileSync(config.nats.cert, 'utf8'),
        key: readFileSync(config.nats.key, 'utf8'),
      },
      name: `bridge ${daemonId}`,
    },
    fleet: config.name,
    daemonId,
    address: config.advertise,
    historyId: store.historyId,
    replicas: config.replicas,
    announceTtlMs: config.announceTtlMs,
    retentionMs: config.retentionMs,
    onConnection: (change, server) => {
      if (change === 'lost') {
        counts.disconnects++;
        logger.warn(
          { server },
          'lost the connection to NATS: sessions go on, their events wait in the store until it is back',
        );
      } else {
        logger.info({ server }, "connected to NATS again: catching the fleet's stream up");
      }
    },
  });

  // One warning per session and failure streak: an outage of NATS must not flood the log.
  const failing = new Set<string>();
  const replicated = replicatedStore(store, {
    events: fleet.events,
    sessions: fleet.sessions,
    owner: fleet.owner,
    lifetime: lifetime.signal,
    report: {
      published: (n) => {
        counts.published += n;
        failing.clear();
      },
      failed: (sessionId, err) => {
        counts.failures++;
        if (failing.has(sessionId)) return;
        failing.add(sessionId);
        logger.warn(
          { sessionId, err: err.message },
          "the fleet's stream did not take an event: tried again until it does (the store keeps it meanwhile)",
        );
      },
    },
    recordFailed: (sessionId, err) => {
      counts.failures++;
      logger.warn(
        { sessionId, err: err.message },
        "a session record or cursor did not reach the fleet's bucket",
      );
    },
  });
  logger.info(
    { fleet: config.name, daemonId, servers: config.nats.servers, replicas: config.replicas },
    `joined fleet ${config.name} as ${daemonId}`,
  );
  return {
    store: replicated.store,
    lost: new LostSessions(fleetElsewhere(fleet.owner, fleet), codec, systemClock),
    replication: () => ({
      lagEvents: replicated.lag(),
      recordsWaiting: replicated.recordsWaiting(),
      ...counts,
    }),
    announce: ({ manager, maxSessions, version }) =>
      fleet.directory.announce(
        () => ({
          id: daemonId,
          address: config.advertise,
          sessions: manager
            .census()
            .filter((row) => LIVE.has(row.status))
            .reduce((n, row) => n + row.sessions, 0),
          maxSessions,
          providers: [...manager.providers.keys()],
          version,
          historyId: store.historyId,
        }),
        lifetime.signal,
        (err) =>
          logger.warn(
            { err: err.message },
            "the fleet's directory did not take this daemon's renewal",
          ),
      ),
    close: async (graceMs) => {
      const settled = await Promise.race([
        replicated.settled().then(() => true),
        new Promise<false>((resolve) => setTimeout(resolve, graceMs, false).unref()),
      ]);
      if (!settled)
        logger.warn(
          { lagEvents: replicated.lag() },
          "stopping before the fleet's stream has every event: the store keeps them, and the next start publishes them",
        );
      lifetime.abort();
      await fleet.directory
        .leave(daemonId)
        .catch((err: Error) =>
          logger.warn(
            { err: err.message },
            "could not leave the fleet's directory: it drops this daemon after its TTL",
          ),
        );
      await fleet.close();
    },
  };
}

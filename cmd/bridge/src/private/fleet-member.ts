import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  type CollabRelay,
  type EventCodec,
  LostSessions,
  type SessionManager,
  type SessionStore,
  systemClock,
} from '@agent-bridge/bridge';
import type { FleetConfig } from '@agent-bridge/config';
import {
  type Fleet,
  fleetCollab,
  fleetElsewhere,
  keepJoining,
  RemoteMembers,
  type ReplicaSourceStore,
  replicatedStore,
} from '@agent-bridge/fleet';
import type { FleetReplication } from '@agent-bridge/metrics';
import type { Logger } from 'pino';

const LIVE = new Set(['STARTING', 'RUNNING', 'STOPPING']);

/** A daemon's part in its fleet (docs/operations.md, "A fleet on NATS"). */
export interface FleetMember {
  /** The embedded store with the fleet beside it: what the daemon runs on. */
  readonly store: SessionStore;
  /** The fleet's sessions whose daemon is gone, for the server. */
  readonly lost: LostSessions;
  /** Where the context bus's posts made here go to the rest of the fleet (the core's). */
  readonly collabRelay: CollabRelay;
  /** For metrics. */
  replication(): FleetReplication;
  /**
   * The daemon's core: its sessions counted in each announcement from now
   * on, the fleet's posts held on its context bus.
   */
  attach(manager: SessionManager): void;
  /** Lets the replicas finish what they can within `graceMs`, leaves the directory, closes the connection. */
  close(graceMs: number): Promise<void>;
}

/**
 * Joins the fleet `config` names, beside the embedded store `store`. The
 * daemon does not wait for NATS: it serves on its store from the start,
 * joins the fleet in the background (trying again while NATS is away) and
 * publishes what the fleet lacks once it has.
 */
export function joinAsMember(
  config: FleetConfig,
  store: ReplicaSourceStore,
  codec: EventCodec,
  logger: Logger,
  /** What the daemon announces of itself beside its address: its providers, bound and version. */
  offer: { providers: string[]; maxSessions: number; version: string },
): FleetMember {
  const lifetime = new AbortController();
  const counts = { published: 0, failures: 0, disconnects: 0 };
  const daemonId =
    config.daemonId ||
    hostname()
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .slice(0, 64);
  const tls = {
    ca: readFileSync(config.nats.caBundle, 'utf8'),
    cert: readFileSync(config.nats.cert, 'utf8'),
    key: readFileSync(config.nats.key, 'utf8'),
  };
  const where = { fleet: config.name, daemonId, servers: config.nats.servers };
  let failedAttempts = 0;
  const joining: Promise<Fleet> = keepJoining(
    {
      nats: { servers: config.nats.servers, tls, name: `bridge ${daemonId}` },
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
    },
    lifetime.signal,
    (err) => {
      counts.failures++;
      // The first failure and then every tenth: an outage at start must not flood the log.
      if (failedAttempts++ % 10 === 0)
        logger.warn(
          { ...where, err: err.message },
          `cannot join fleet ${config.name} yet: sessions go on on the embedded store, and the fleet gets their events once NATS answers`,
        );
    },
  );
  let manager: SessionManager | undefined;
  const announcement = () => ({
    id: daemonId,
    address: config.advertise,
    sessions: (manager?.census() ?? [])
      .filter((row) => LIVE.has(row.status))
      .reduce((n, row) => n + row.sessions, 0),
    ...offer,
    historyId: store.historyId,
  });
  // In the directory before any record names this daemon: a record whose
  // daemon is not in the directory reads as lost to the rest of the fleet.
  const ready: Promise<Fleet> = joining.then(async (fleet) => {
    await fleet.directory.announce(announcement, lifetime.signal, (err) =>
      logger.warn({ err: err.message }, "the fleet's directory did not take this daemon's renewal"),
    );
    logger.info(
      { ...where, replicas: config.replicas },
      `joined fleet ${config.name} as ${daemonId}`,
    );
    return fleet;
  });
  ready.catch(() => undefined);
  // One warning per session and failure streak: an outage of NATS must not flood the log.
  const failing = new Set<string>();
  const owner = { daemonId, address: config.advertise, historyId: store.historyId };
  const replicated = replicatedStore(store, {
    fleet: ready,
    owner,
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
        "a session record or cursor did not reach the fleet's bucket: tried again",
      );
    },
  });
  const remote = new RemoteMembers(owner);
  remote.follow(ready, lifetime.signal, (err) =>
    logger.warn({ err: err.message }, "cannot follow the fleet's sessions: tried again"),
  );
  const posts = fleetCollab({
    board: ready.then((f) => f.board),
    self: `${daemonId}/${store.historyId}`,
    lifetime: lifetime.signal,
    members: (projectId) => remote.members(projectId),
    failed: (what, err) => {
      counts.failures++;
      logger.warn(
        { err: err.message },
        `${what}: the fleet's context bus did not take it; tried again`,
      );
    },
  });
  return {
    store: replicated.store,
    collabRelay: posts.relay,
    lost: new LostSessions(fleetElsewhere(owner, ready), codec, systemClock),
    replication: () => ({
      lagEvents: replicated.lag(),
      recordsWaiting: replicated.recordsWaiting() + posts.waiting(),
      ...counts,
    }),
    attach: (m) => {
      manager = m;
      posts.follow({
        post: (post) => m.collaboration.importPost(post),
        message: (message) => m.collaboration.importMessage(message),
      });
      // What was posted here before (a restart, an outage at start): the fleet drops repeats.
      void ready.then(
        () => m.collaboration.relayAll(),
        () => undefined,
      );
    },
    close: async (graceMs) => {
      const settled = await Promise.race([
        replicated.settled().then(() => true),
        new Promise<false>((resolve) => setTimeout(resolve, graceMs, false).unref()),
      ]);
      if (!settled)
        logger.warn(
          { lagEvents: replicated.lag(), recordsWaiting: replicated.recordsWaiting() },
          'stopping before the fleet has every event and record: the store keeps them, and the next start publishes them',
        );
      lifetime.abort();
      const fleet = await joining.catch(() => undefined);
      if (!fleet) return;
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

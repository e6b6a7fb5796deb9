import { readFileSync } from 'node:fs';
import {
  type Bridge,
  createTestPki,
  fleetConfig,
  freePort,
  type NatsCluster,
  startBridge,
  startNatsCluster,
  type TestPki,
  waitFor,
} from '@agent-bridge/harness';
import { connectNats, FleetEvents, type StoredEvent } from '@agent-bridge/jetstream';
import { afterAll, beforeAll } from 'vitest';

/**
 * A daemon of fleet `fleet` on `cluster` (R3), with the fake agents
 * `providers`; resolved once it has joined the fleet (it serves before:
 * `joined: false` does not wait).
 */
export async function fleetDaemon(
  cluster: NatsCluster,
  pki: TestPki,
  opts: {
    daemonId: string;
    fleet: string;
    providers: Record<string, string[]>;
    config?: Record<string, unknown>;
    joined?: boolean;
  },
): Promise<Bridge> {
  const port = await freePort();
  const b = await startBridge({
    pki,
    fakeProviders: opts.providers,
    config: {
      ...opts.config,
      server: { listen: `127.0.0.1:${port}` },
      fleet: fleetConfig(cluster, {
        name: opts.fleet,
        daemonId: opts.daemonId,
        port,
        announceTtl: '3s',
      }),
    },
  });
  if (opts.joined !== false) {
    await waitFor(
      `daemon ${opts.daemonId} to join fleet ${opts.fleet}`,
      () => b.daemon.output().includes(`joined fleet ${opts.fleet} as ${opts.daemonId}`),
      90_000,
      100,
    ).catch(async (err) => {
      await b.close();
      throw err;
    });
  }
  return b;
}

/** The fleet's own copy of sessions, read straight from JetStream. */
export async function fleetReader(cluster: NatsCluster, fleet: string) {
  const nc = await connectNats({
    servers: cluster.urls,
    tls: {
      ca: readFileSync(cluster.pki.caPath, 'utf8'),
      cert: cluster.pki.client.certPem,
      key: cluster.pki.client.keyPem,
    },
    name: 'test reader',
  });
  // Right after a node is lost the cluster may still elect leaders: opening waits for them.
  let events: FleetEvents | undefined;
  await waitFor(
    "the fleet's stream to answer",
    async () => {
      events = await FleetEvents.open(nc, { fleet, replicas: 3, publishTimeoutMs: 2000 }).catch(
        () => undefined,
      );
      return events !== undefined;
    },
    60_000,
    250,
  ).catch(async (err) => {
    await nc.close();
    throw err;
  });
  const opened = events!;
  return {
    tail: async (projectId: string, sessionId: string) =>
      (await opened.tail(projectId, sessionId))?.seq ?? 0,
    read: async (projectId: string, sessionId: string): Promise<StoredEvent[]> => {
      const out: StoredEvent[] = [];
      for await (const e of opened.read(projectId, sessionId)) out.push(e);
      return out;
    },
    close: () => nc.close(),
  };
}

/** What a fleet test shares: a 3-node NATS cluster, a PKI, and the daemons it started. */
export interface FleetFixture {
  readonly cluster: NatsCluster;
  readonly pki: TestPki;
  /** The daemons started; each still running is stopped after the file's tests. */
  readonly bridges: Bridge[];
}

/** Starts the cluster and PKI before the file's tests, and everything after them. */
export function useFleet(): FleetFixture {
  const f = { bridges: [] as Bridge[] } as {
    cluster: NatsCluster;
    pki: TestPki;
    bridges: Bridge[];
  };
  beforeAll(async () => {
    [f.cluster, f.pki] = await Promise.all([startNatsCluster({ size: 3 }), createTestPki()]);
  }, 120_000);
  afterAll(async () => {
    for (const b of f.bridges) {
      b.client.close();
      const { proc } = b.daemon;
      if (proc.exitCode === null && proc.signalCode === null) await b.daemon.stop();
    }
    await f.cluster?.stop();
  });
  return f;
}

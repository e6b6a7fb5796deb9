import { type Bridge, collect, scrapeMetrics, waitFor } from '@agent-bridge/harness';
import { EventType, SessionEvent } from '@agent-bridge/proto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fleetDaemon, fleetReader, useFleet } from './fleet-fixture.js';

// Two daemons of a fleet, many sessions writing at once, while NATS nodes
// go away: a node, then the whole cluster for 30 s. What JetStream ends up
// with is compared, event by event, with what each daemon served.

const fleet = useFleet();
const bridges = fleet.bridges;

const CONFIG = {
  metrics: { listen: '127.0.0.1:0' },
  // A ring far smaller than a session's output: the daemon lets go of
  // events as it runs, and the fleet must still get every one.
  sessions: { max_per_project: 20, max_global: 20, event_buffer_size: 64 },
};
// Paced writers: 400 lines each, 4 every 10 ms.
const PROVIDERS = { steady: ['steady', '400', '4'] };

beforeAll(async () => {
  const { cluster, pki } = fleet;
  bridges.push(
    ...(await Promise.all(
      ['daemon-a', 'daemon-b'].map((daemonId) =>
        fleetDaemon(cluster, pki, {
          daemonId,
          fleet: 'flood',
          providers: PROVIDERS,
          config: CONFIG,
        }),
      ),
    )),
  );
}, 120_000);

const metrics = (b: Bridge) =>
  scrapeMetrics(b.daemon.metricsPort!, fleet.pki.ca.certPem, fleet.pki.client);

/** Starts `n` sessions on each daemon; resolves with each one's id and daemon. */
async function startFlood(n: number): Promise<{ b: Bridge; id: string }[]> {
  const started = await Promise.all(
    bridges.flatMap((b) =>
      Array.from({ length: n }, async () => ({
        b,
        id: (await b.sessions().start('steady')).sessionId,
      })),
    ),
  );
  return started;
}

/** Waits for each session to print "done", stops it, and returns the seq of its last event. */
async function finish(all: { b: Bridge; id: string }[]): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  await Promise.all(
    all.map(async ({ b, id }) => {
      await collect(b.stream({ sessionId: id }), (e) => e.text === 'done', {
        timeoutMs: 120_000,
      });
      await b.call((c) => c.stopSession, { sessionId: id, force: false });
      ends.set(id, Number((await b.call((c) => c.getSession, { sessionId: id })).lastSeq));
    }),
  );
  return ends;
}

/**
 * Every session's events in JetStream: seqs 1 to its last, once each, in
 * order; the agent's 400 lines each once and in order, its "done", and the
 * session's end.
 */
async function expectFleetHolds(ends: Map<string, number>): Promise<void> {
  const reader = await fleetReader(fleet.cluster, 'flood');
  try {
    const project = bridges[0]!.project;
    for (const [id, last] of ends) {
      await waitFor(
        `the fleet to catch up with session ${id}`,
        async () => (await reader.tail(project, id)) >= last,
        60_000,
        250,
      );
      const held = (await reader.read(project, id)).map((e) => SessionEvent.decode(e.bytes));
      expect(held.map((e) => Number(e.seq))).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      const lines = held.map((e) => e.text).filter((t) => t.startsWith('line '));
      expect(lines).toEqual(Array.from({ length: 400 }, (_, i) => `line ${i + 1}`));
      expect(held.map((e) => e.text)).toContain('done');
      expect(held.at(-1)!.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    }
  } finally {
    await reader.close();
  }
}

describe('a fleet on NATS JetStream under outages', () => {
  it('20 sessions writing while a NATS node is killed: nothing lost or doubled in JetStream, the disturbance counted', async () => {
    const before = await Promise.all(bridges.map(metrics));
    const flood = await startFlood(10);
    // The daemons connect to the first node: killing it moves them.
    await waitFor(
      'the flood to be under way',
      async () => {
        const m = await metrics(bridges[0]!);
        return (
          (m.get('bridge_fleet_events_published_total') ?? 0) >
          (before[0]!.get('bridge_fleet_events_published_total') ?? 0) + 500
        );
      },
      60_000,
      100,
    );
    await fleet.cluster.kill(0);
    const ends = await finish(flood);
    expect(ends.size).toBe(20);
    await expectFleetHolds(ends);
    for (const b of bridges) {
      const m = await metrics(b);
      expect(m.get('bridge_fleet_nats_disconnects_total')).toBeGreaterThanOrEqual(1);
      expect(m.get('bridge_fleet_publish_lag_events')).toBe(0);
    }
    await fleet.cluster.restart(0);
  }, 300_000);

  it('the whole cluster gone for 30 s: sessions go on, a daemon starts meanwhile, the daemons hold what the fleet lacks and catch up when it returns', async () => {
    const flood = await startFlood(3);
    await Promise.all([0, 1, 2].map((i) => fleet.cluster.kill(i)));
    const outageEnds = Date.now() + 30_000;
    // A daemon that starts meanwhile serves at once, on its store, and joins later.
    const late = await fleetDaemon(fleet.cluster, fleet.pki, {
      daemonId: 'daemon-late',
      fleet: 'flood',
      providers: PROVIDERS,
      config: CONFIG,
      joined: false,
    });
    bridges.push(late);
    flood.push({ b: late, id: (await late.sessions().start('steady')).sessionId });
    // The sessions run to their end while NATS is away; the store holds their events.
    const served = await finish(flood);
    await waitFor(
      'the daemons to count events the fleet lacks',
      async () => {
        const all = await Promise.all(bridges.map(metrics));
        return all.every((m) => (m.get('bridge_fleet_publish_lag_events') ?? 0) > 0);
      },
      30_000,
      250,
    );
    await waitFor('30 s of outage', () => Date.now() >= outageEnds, 40_000, 250);
    await Promise.all([0, 1, 2].map((i) => fleet.cluster.restart(i)));
    await expectFleetHolds(served);
    await waitFor(
      'the daemons to be caught up',
      async () => {
        const all = await Promise.all(bridges.map(metrics));
        return all.every(
          (m) =>
            m.get('bridge_fleet_publish_lag_events') === 0 &&
            m.get('bridge_fleet_records_waiting') === 0,
        );
      },
      60_000,
      250,
    );
  }, 300_000);
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fleetConfig,
  freePort,
  type NatsCluster,
  startNatsCluster,
  waitFor,
} from '@agent-bridge/harness';
import {
  DeliverPolicy,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  StorageType,
} from '@nats-io/jetstream';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import {
  AGENTS,
  type BenchBridge,
  batchedIngestRate,
  linesFile,
  startBenchBridge,
} from './bench-bridge.js';
import { against, median, type Row } from './row.js';
import type { Sizes } from './sizes.js';

const FLEET = 'bench';

/**
 * B11: a daemon in a fleet on NATS JetStream (a 3-node cluster on
 * loopback, R3, mutual TLS). Two rows: what the replica costs the daemon's
 * own ingest (B1's batched live read, against the same daemon on its
 * embedded store alone: a ceiling, the replica only adds work), and how
 * fast a session's events reach the fleet's stream, from the input that
 * starts the output until JetStream holds the last event (against a bare
 * @nats-io/jetstream publisher in this process storing the same messages,
 * each packing many events, the same way: one after the other, each after
 * its predecessor; a ceiling, the daemon does that and reads the events
 * from its store and packs them too).
 */
export async function fleetRows(s: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-fleet-'));
  const cluster = await startNatsCluster({ size: 3 });
  let nc: NatsConnection | undefined;
  try {
    nc = await connect({
      servers: cluster.urls,
      tls: {
        ca: readFileSync(cluster.pki.caPath, 'utf8'),
        cert: cluster.pki.client.certPem,
        key: cluster.pki.client.keyPem,
      },
      noRandomize: true,
      ignoreClusterUpdates: true,
    });
    return [...(await ingestRows(s, dir, cluster)), ...(await publishRows(s, dir, cluster, nc))];
  } finally {
    await nc?.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const row = (name: string, value: number, unit: string) =>
  ({ id: 'B11', name, value, unit, better: 'higher' }) as const;

async function fleetBridge(
  cluster: NatsCluster,
  file: string,
  sessions: Record<string, unknown>,
): Promise<BenchBridge> {
  const port = await freePort();
  return startBenchBridge({
    file,
    config: {
      sessions,
      server: { listen: `127.0.0.1:${port}` },
      fleet: fleetConfig(cluster, { name: FLEET, daemonId: `bench-${port}`, port }),
    },
  });
}

const ringFor = (n: number, width: number) => ({
  event_buffer_size: n + 64,
  event_buffer_bytes: `${Math.ceil(((n + 64) * (width + 512)) / 2 ** 20)}MiB`,
});

/** B1's batched live read on a fleet daemon and on the embedded store alone. */
async function ingestRows(s: Sizes, dir: string, cluster: NatsCluster): Promise<Row[]> {
  const n = s.events;
  const file = linesFile(dir, n, s.width);
  const sessions = ringFor(n, s.width);
  const rate = (bridge: BenchBridge) => batchedIngestRate(bridge, n);
  const fleet = await fleetBridge(cluster, file, sessions);
  const alone = await startBenchBridge({ file, config: { sessions } });
  try {
    const runs = { fleet: [] as number[], alone: [] as number[] };
    for (let rep = 0; rep < s.reps; rep++) {
      runs.fleet.push(await rate(fleet));
      runs.alone.push(await rate(alone));
    }
    return [
      against({
        ...row(
          'live StreamEventBatches, embedded store with a NATS replica (R3)',
          median(runs.fleet),
          'events/s',
        ),
        ref: {
          name: 'the same on the embedded store alone',
          value: median(runs.alone),
          unit: 'events/s',
          ceiling: true,
        },
      }),
    ];
  } finally {
    await fleet.close();
    await alone.close();
  }
}

/** Events/s into the fleet's stream, and a bare publisher storing the same messages. */
async function publishRows(
  s: Sizes,
  dir: string,
  cluster: NatsCluster,
  nc: NatsConnection,
): Promise<Row[]> {
  const n = s.events;
  const file = linesFile(dir, n, s.width);
  const bridge = await fleetBridge(cluster, file, ringFor(n, s.width));
  const jsm = await jetstreamManager(nc);
  const runs = { daemon: [] as number[], bare: [] as number[] };
  try {
    for (let rep = 0; rep < s.reps; rep++) {
      const sessionId = await bridge.start(AGENTS.gatedCat);
      const subject = `bridge.${FLEET}.events.bench.${sessionId}`;
      const t0 = process.hrtime.bigint();
      await bridge.call((c) => c.sendInput, { sessionId, text: 'go', idempotencyKey: '' });
      const last = Number((await bridge.finished(sessionId, 300_000)).lastSeq);
      await waitFor(
        `JetStream to hold event ${last} of session ${sessionId}`,
        async () => (await lastSeqOf(jsm, subject)) >= last,
        300_000,
        20,
      );
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      runs.daemon.push(last / secs);
      runs.bare.push(await barePublisher(nc, jsm, await storedMessages(nc, subject, last), rep));
    }
  } finally {
    await bridge.close();
  }
  return [
    against({
      ...row(
        `a session's ${n} lines into the fleet's stream (R3), input to the last event stored`,
        median(runs.daemon),
        'events/s',
      ),
      ref: {
        name: 'a bare @nats-io/jetstream publisher storing the same messages one after another',
        value: median(runs.bare),
        unit: 'events/s',
        ceiling: true,
      },
    }),
  ];
}

async function lastSeqOf(jsm: JetStreamManager, subject: string): Promise<number> {
  const m = await jsm.streams
    .getMessage(`BRIDGE_${FLEET}`, { last_by_subj: subject })
    .catch(() => null);
  return m ? Number(m.header.get('Bridge-Seq')) : 0;
}

/** A message as the daemon stored it: the seqs of its first and last events, and its packed events. */
interface StoredMessage {
  first: string;
  last: string;
  data: Uint8Array;
}

/** The messages the daemon stored for a session up to its event `count`, as JetStream holds them. */
async function storedMessages(
  nc: NatsConnection,
  subject: string,
  count: number,
): Promise<StoredMessage[]> {
  const c = await jetstream(nc).consumers.get(`BRIDGE_${FLEET}`, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
  });
  const out: StoredMessage[] = [];
  const messages = await c.consume({ max_messages: 1024 });
  for await (const m of messages) {
    const last = m.headers?.get('Bridge-Seq') ?? '';
    out.push({ first: m.headers?.get('Bridge-First-Seq') ?? last, last, data: m.data });
    if (Number(last) >= count) break;
  }
  await messages.close();
  return out;
}

/**
 * Events/s of a bare publisher storing `messages` on a stream of its own
 * (R3, file storage) as the daemon does: each with its id and seq header,
 * after its predecessor's stream position, awaited one by one.
 */
async function barePublisher(
  nc: NatsConnection,
  jsm: JetStreamManager,
  messages: StoredMessage[],
  rep: number,
): Promise<number> {
  const stream = `BENCH_REF_${rep}`;
  await jsm.streams.add({
    name: stream,
    subjects: [`bench.ref.${rep}`],
    storage: StorageType.File,
    num_replicas: 3,
  });
  try {
    const js = jetstream(nc);
    let previous = 0;
    const t0 = process.hrtime.bigint();
    for (const m of messages) {
      const h = headers();
      h.set('Bridge-Seq', m.last);
      h.set('Bridge-First-Seq', m.first);
      const ack = await js.publish(`bench.ref.${rep}`, m.data, {
        msgID: `ref:${m.first}-${m.last}`,
        headers: h,
        expect: { lastSubjectSequence: previous },
      });
      previous = ack.seq;
    }
    const events = Number(messages.at(-1)?.last ?? 0);
    return events / (Number(process.hrtime.bigint() - t0) / 1e9);
  } finally {
    await jsm.streams.delete(stream);
  }
}

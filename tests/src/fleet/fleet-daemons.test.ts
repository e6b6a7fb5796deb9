import { readFileSync } from 'node:fs';
import {
  type Bridge,
  codeOf,
  collect,
  createTestPki,
  freePort,
  type NatsCluster,
  startBridge,
  startNatsCluster,
  status,
  type TestPki,
  waitFor,
} from '@agent-bridge/harness';
import { connectNats, FleetEvents } from '@agent-bridge/jetstream';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Two daemons of one fleet on a real 3-node NATS cluster (R3, mutual TLS):
// a session's history outlives the daemon it ran on.

let cluster: NatsCluster;
let pki: TestPki;
const bridges: Bridge[] = [];

beforeAll(async () => {
  [cluster, pki] = await Promise.all([startNatsCluster({ size: 3 }), createTestPki()]);
}, 120_000);

afterAll(async () => {
  for (const b of bridges) {
    b.client.close();
    const { proc } = b.daemon;
    if (proc.exitCode === null && proc.signalCode === null) await b.daemon.stop();
  }
  await cluster?.stop();
});

async function fleetDaemon(daemonId: string): Promise<Bridge> {
  const port = await freePort();
  const b = await startBridge({
    pki,
    fakeProviders: { echo: ['echo'] },
    config: {
      server: { listen: `127.0.0.1:${port}` },
      fleet: {
        name: 'one',
        daemon_id: daemonId,
        advertise: `127.0.0.1:${port}`,
        nats: {
          servers: cluster.urls,
          ca_bundle: cluster.pki.caPath,
          cert: cluster.pki.client.certPath,
          key: cluster.pki.client.keyPath,
        },
        replicas: 3,
        announce_ttl: '3s',
      },
    },
  });
  bridges.push(b);
  return b;
}

/** The fleet's own view: where a session's history in JetStream ends. */
async function fleetTail(projectId: string, sessionId: string): Promise<number> {
  const nc = await connectNats({
    servers: cluster.urls,
    tls: {
      ca: readFileSync(cluster.pki.caPath, 'utf8'),
      cert: cluster.pki.client.certPem,
      key: cluster.pki.client.keyPem,
    },
    name: 'test reader',
  });
  try {
    const events = await FleetEvents.open(nc, { fleet: 'one', replicas: 3 });
    return (await events.tail(projectId, sessionId))?.seq ?? 0;
  } finally {
    await nc.close();
  }
}

const shape = (e: SessionEvent) => [Number(e.seq), e.type, e.text];

describe('a fleet on NATS JetStream: history that outlives its host', () => {
  it('serves the whole history of a SIGKILLed daemon from another, in order, ending with host_lost; writes refused', async () => {
    const [a, b] = await Promise.all([fleetDaemon('daemon-a'), fleetDaemon('daemon-b')]);
    const session = await a.sessions().start('echo');
    const id = session.sessionId;
    for (let i = 0; i < 5; i++) await session.send(`line ${i}`);
    const onA = await collect(
      a.stream({ sessionId: id, afterSeq: 0n }),
      (e) => e.text === 'echo: line 4',
    );
    const lastOnA = Number(onA.events.at(-1)!.seq);

    // While A lives, B names it instead of serving the session.
    const live = b.call((c) => c.getSession, { sessionId: id });
    expect(await codeOf(live)).toBe(status.FAILED_PRECONDITION);
    await expect(live).rejects.toThrow(/runs on daemon daemon-a at 127\.0\.0\.1:\d+/);

    await waitFor(
      'the fleet to hold every event A served',
      async () => (await fleetTail(a.project, id)) >= lastOnA,
      30_000,
      250,
    );
    const agentPid = (await a.call((c) => c.getSession, { sessionId: id })).pid;
    a.daemon.proc.kill('SIGKILL');
    process.kill(-agentPid, 'SIGKILL');
    await a.daemon.exited;

    // Once A's directory entry has run out, B serves the history read-only.
    await waitFor(
      'B to report the session lost',
      async () => {
        const got = await b.call((c) => c.getSession, { sessionId: id }).catch(() => undefined);
        return got?.status === SessionStatus.SESSION_STATUS_FAILED;
      },
      30_000,
      250,
    );
    const onB = await collect(b.stream({ sessionId: id, afterSeq: 0n }));
    const seqs = onB.events.map((e) => Number(e.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(onB.events.slice(0, onA.events.length).map(shape)).toEqual(onA.events.map(shape));
    const end = onB.events.at(-1)!;
    expect(end.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
    expect(end.data).toMatchObject({ reason: 'host_lost', daemon_id: 'daemon-a' });
    expect(end.sessionId).toBe(id);
    expect(end.provider).toBe('echo');

    // From a position, too: the rest and the same end.
    const rest = await collect(b.stream({ sessionId: id, afterSeq: BigInt(lastOnA - 2) }));
    expect(rest.events.map(shape)).toEqual(onB.events.slice(lastOnA - 2).map(shape));

    const got = await b.call((c) => c.getSession, { sessionId: id });
    expect(Number(got.lastSeq)).toBe(Number(end.seq));
    const listed = await b.call((c) => c.listSessions, {
      projectId: '',
      statuses: [],
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.sessions.map((s) => [s.sessionId, s.status])).toContainEqual([
      id,
      SessionStatus.SESSION_STATUS_FAILED,
    ]);

    const write = b.call((c) => c.sendInput, { sessionId: id, text: 'more', idempotencyKey: '' });
    expect(await codeOf(write)).toBe(status.FAILED_PRECONDITION);
    await expect(write).rejects.toThrow(
      /lived on daemon daemon-a at 127\.0\.0\.1:\d+, which has left the fleet/,
    );
    const stop = b.call((c) => c.stopSession, { sessionId: id, force: false });
    expect(await codeOf(stop)).toBe(status.FAILED_PRECONDITION);

    // Another project's caller learns nothing of it.
    const other = b.call((c) => c.getSession, { sessionId: id }, await b.bearerFor('beta'));
    expect(await codeOf(other)).toBe(status.NOT_FOUND);
  }, 120_000);
});

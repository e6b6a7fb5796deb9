import { readFileSync } from 'node:fs';
import { type NatsCluster, startNatsCluster } from '@agent-bridge/harness';
import { connectNats, FleetEvents, type SessionTail } from '@agent-bridge/jetstream';
import { createCA, issueCert } from '@agent-bridge/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A real 3-node NATS cluster on loopback (nats-server with JetStream, mutual
// TLS for clients and routes), the fleet's events on R3.

let cluster: NatsCluster;
const tls = () => ({
  ca: readFileSync(cluster.pki.caPath, 'utf8'),
  cert: cluster.pki.client.certPem,
  key: cluster.pki.client.keyPem,
});

beforeAll(async () => {
  cluster = await startNatsCluster({ size: 3 });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const bytesOf = (session: string, seq: number) =>
  new TextEncoder().encode(`${session} event ${seq}`);

describe('a fleet`s session events on JetStream', () => {
  it('keeps every event of interleaved sessions once and in order while a node is killed', async () => {
    const nc = await connectNats({ servers: cluster.urls, tls: tls(), name: 'daemon-a' });
    try {
      const events = await FleetEvents.open(nc, { fleet: 'alpha', replicas: 3 });
      const sessions = ['s-1', 's-2'];
      const tails = new Map<string, SessionTail | undefined>();
      const retries: string[] = [];
      const signal = AbortSignal.timeout(60_000);
      for (let seq = 1; seq <= 120; seq++) {
        if (seq === 60) await cluster.kill(1);
        for (const s of sessions) {
          const tail = await events.append(
            'p',
            s,
            [{ seq, bytes: bytesOf(s, seq) }],
            tails.get(s),
            {
              signal,
              onRetry: (err) => retries.push(err.message),
            },
          );
          tails.set(s, tail);
        }
      }
      for (const s of sessions) {
        const read = [];
        for await (const e of events.read('p', s)) read.push(e);
        expect(read.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
        expect(new TextDecoder().decode(read[41]!.bytes)).toBe(`${s} event 42`);
        expect(await events.tail('p', s)).toEqual(tails.get(s));
      }
      // After a point, and past the end.
      const after = [];
      for await (const e of events.read('p', 's-1', 100)) after.push(e.seq);
      expect(after).toEqual(Array.from({ length: 20 }, (_, i) => i + 101));
      expect(await drain(events.read('p', 's-1', 120))).toEqual([]);
      expect(await drain(events.read('p', 'never'))).toEqual([]);
    } finally {
      await nc.close();
      await cluster.restart(1);
    }
    // A killed node's leadership moves within seconds; more on a busy host.
  }, 120_000);

  it('packs many events in a message, stored once when retried, read back one by one from any seq', async () => {
    const nc = await connectNats({ servers: cluster.urls, tls: tls(), name: 'daemon-c' });
    try {
      const events = await FleetEvents.open(nc, { fleet: 'alpha', replicas: 3 });
      const run = (from: number, to: number) =>
        Array.from({ length: to - from + 1 }, (_, i) => ({
          seq: from + i,
          bytes: bytesOf('b-1', from + i),
        }));
      const first = await events.publish('p', 'b-1', run(1, 50), undefined);
      expect(first.seq).toBe(50);
      // Its acknowledgement lost, the same batch again: stored once.
      expect(await events.publish('p', 'b-1', run(1, 50), undefined)).toEqual(first);
      await events.append('p', 'b-1', run(51, 51), first, { signal: AbortSignal.timeout(30_000) });
      const all = await drain(events.read('p', 'b-1'));
      expect(all.map((e) => e.seq)).toEqual(run(1, 51).map((e) => e.seq));
      expect(new TextDecoder().decode(all[29]!.bytes)).toBe('b-1 event 30');
      // From inside a message: only what follows.
      expect((await drain(events.read('p', 'b-1', 47))).map((e) => e.seq)).toEqual([
        48, 49, 50, 51,
      ]);
    } finally {
      await nc.close();
    }
  });

  it('stores a retried publish once, and refuses one that skips or repeats a position', async () => {
    const nc = await connectNats({ servers: cluster.urls, tls: tls(), name: 'daemon-b' });
    try {
      const events = await FleetEvents.open(nc, { fleet: 'alpha', replicas: 3 });
      const first = await events.publish(
        'p',
        'r-1',
        [{ seq: 1, bytes: bytesOf('r-1', 1) }],
        undefined,
      );
      // The same publish again (its acknowledgement was lost): stored once.
      expect(
        await events.publish('p', 'r-1', [{ seq: 1, bytes: bytesOf('r-1', 1) }], undefined),
      ).toEqual(first);
      const second = await events.publish(
        'p',
        'r-1',
        [{ seq: 2, bytes: bytesOf('r-1', 2) }],
        first,
      );
      // Event 3 published after event 1's position, as a publisher that missed event 2's ack would.
      await expect(
        events.publish('p', 'r-1', [{ seq: 3, bytes: bytesOf('r-1', 3) }], first),
      ).rejects.toThrow(/wrong last sequence/);
      expect(await events.tail('p', 'r-1')).toEqual(second);
      expect((await drain(events.read('p', 'r-1'))).map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      await nc.close();
    }
  });

  it('a read stopped by its signal throws instead of ending as if the history were whole', async () => {
    const nc = await connectNats({ servers: cluster.urls, tls: tls(), name: 'reader' });
    try {
      const events = await FleetEvents.open(nc, { fleet: 'alpha', replicas: 3 });
      let tail: SessionTail | undefined;
      const signal = AbortSignal.timeout(30_000);
      for (let seq = 1; seq <= 600; seq++) {
        tail = await events.append('p', 'long', [{ seq, bytes: bytesOf('long', seq) }], tail, {
          signal,
        });
      }
      const stop = new AbortController();
      const read: number[] = [];
      await expect(
        (async () => {
          for await (const e of events.read('p', 'long', 0, stop.signal)) {
            read.push(e.seq);
            if (e.seq === 3) stop.abort(new Error('the reader went away'));
          }
        })(),
      ).rejects.toThrow('the reader went away');
      expect(read.slice(0, 3)).toEqual([1, 2, 3]);
      expect(read.length).toBeLessThan(600);
    } finally {
      await nc.close();
    }
  }, 120_000);

  it('speaks mutual TLS only: no plaintext address, no certificate of another CA', async () => {
    await expect(
      connectNats({ servers: ['nats://127.0.0.1:4222'], tls: tls(), name: 'x' }),
    ).rejects.toThrow(/not a tls:\/\/ address/);
    const rogueCa = await createCA({ name: 'rogue CA' });
    const rogue = await issueCert({ type: 'client', cn: 'bridge', ca: rogueCa });
    await expect(
      connectNats({
        servers: [cluster.urls[0]!],
        tls: { ca: tls().ca, cert: rogue.certPem, key: rogue.keyPem },
        name: 'rogue',
        connectTimeoutMs: 5_000,
      }),
    ).rejects.toThrow();
  });
});

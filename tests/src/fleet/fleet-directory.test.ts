import { readFileSync } from 'node:fs';
import { type NatsCluster, startNatsCluster, waitFor } from '@agent-bridge/harness';
import {
  connectNats,
  type DaemonAnnouncement,
  FleetDirectory,
  placeSession,
} from '@agent-bridge/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The fleet's directory on a real NATS server (mutual TLS): daemons join by
// announcing themselves, leave by stopping, and fall out when they stop
// renewing (a crash) once their announcement's TTL is over.

let cluster: NatsCluster;
beforeAll(async () => {
  cluster = await startNatsCluster({ size: 1 });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const connect = (name: string) =>
  connectNats({
    servers: cluster.urls,
    tls: {
      ca: readFileSync(cluster.pki.caPath, 'utf8'),
      cert: cluster.pki.client.certPem,
      key: cluster.pki.client.keyPem,
    },
    name,
  });

const daemon = (id: string, sessions: number, maxSessions: number): DaemonAnnouncement => ({
  id,
  address: `${id}.example:9445`,
  sessions,
  maxSessions,
  providers: ['claude', 'mock'],
  version: '0.1.0',
  historyId: `history-${id}`,
});

describe('the fleet directory', () => {
  it('sees daemons join and leave, and places sessions on a live one with room', async () => {
    const [ncA, ncB, ncC] = await Promise.all([connect('a'), connect('b'), connect('c')]);
    const a = new AbortController();
    const b = new AbortController();
    try {
      // Renewals every third of it: long enough for a busy host, short enough to watch expire.
      const ttlMs = 5_000;
      const dirA = await FleetDirectory.open(ncA, { fleet: 'beta', ttlMs });
      const dirB = await FleetDirectory.open(ncB, { fleet: 'beta', ttlMs });
      const reader = await FleetDirectory.open(ncC, { fleet: 'beta', ttlMs });
      let bSessions = 1;
      await dirA.announce(() => daemon('a', 9, 10), a.signal);
      await dirB.announce(() => daemon('b', bSessions, 10), b.signal);
      const ids = async () => (await reader.live()).map((d) => d.id);
      expect(await ids()).toEqual(['a', 'b']);
      expect(placeSession(await reader.live(), 'claude')?.id).toBe('b');
      expect(placeSession(await reader.live(), 'codex')).toBeUndefined();
      // Renewals carry what the daemon says now: b fills up, a has the room.
      bSessions = 10;
      await waitFor(
        'b to renew as full',
        async () => {
          const live = await reader.live();
          return live.find((d) => d.id === 'b')?.sessions === 10;
        },
        10_000,
      );
      expect(placeSession(await reader.live(), 'claude')?.id).toBe('a');
      // a stops: it leaves at once.
      a.abort();
      await waitFor('a to leave the directory', async () => !(await ids()).includes('a'), 5_000);
      // b crashes (its connection is cut, nothing removes its entry): gone after the TTL.
      await ncB.close();
      await waitFor('b to fall out after its TTL', async () => (await ids()).length === 0, 30_000);
      expect(placeSession(await reader.live(), 'claude')).toBeUndefined();
    } finally {
      a.abort();
      b.abort();
      await Promise.all([ncA.close(), ncB.close(), ncC.close()]);
    }
  }, 60_000);
});

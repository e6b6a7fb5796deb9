import { readFileSync } from 'node:fs';
import { type NatsCluster, startNatsCluster } from '@agent-bridge/harness';
import { connectNats, FleetEvents } from '@agent-bridge/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Fleets kept apart by NATS accounts: each fleet's daemons present client
// certificates mapped to the fleet's account (verify_and_map), and an
// account sees its own streams and subjects only.

let cluster: NatsCluster;
beforeAll(async () => {
  cluster = await startNatsCluster({
    size: 1,
    accounts: { ALPHA: ['fleet-alpha'], BETA: ['fleet-beta'] },
  });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

async function connectAs(cn: string) {
  const cert = await cluster.pki.issueClient(cn);
  return connectNats({
    servers: cluster.urls,
    tls: { ca: readFileSync(cluster.pki.caPath, 'utf8'), cert: cert.certPem, key: cert.keyPem },
    name: cn,
    connectTimeoutMs: 5_000,
  });
}

describe('fleets on one NATS cluster', () => {
  it('a daemon of one fleet cannot read or overhear another fleet`s events', async () => {
    const alpha = await connectAs('fleet-alpha');
    const beta = await connectAs('fleet-beta');
    try {
      // beta listens where alpha publishes, before it does.
      const overheard: string[] = [];
      const heard: string[] = [];
      const sub = beta.subscribe('bridge.alpha.>', {
        callback: (_err, m) => {
          overheard.push(m.subject);
        },
      });
      // The control: alpha's own account hears it.
      const own = alpha.subscribe('bridge.alpha.>', {
        callback: (_err, m) => {
          heard.push(m.subject);
        },
      });
      await Promise.all([beta.flush(), alpha.flush()]);
      const events = await FleetEvents.open(alpha, { fleet: 'alpha' });
      const signal = AbortSignal.timeout(30_000);
      await events.append(
        'p',
        's',
        [{ seq: 1, bytes: new TextEncoder().encode('secret plan') }],
        undefined,
        {
          signal,
        },
      );
      expect(await events.tail('p', 's')).toMatchObject({ seq: 1 });
      // The same names in beta's account are beta's own, empty, stream.
      const seenByBeta = await FleetEvents.open(beta, { fleet: 'alpha' });
      expect(await seenByBeta.tail('p', 's')).toBeUndefined();
      await beta.flush();
      await alpha.flush();
      expect(heard).toEqual(['bridge.alpha.events.p.s']);
      expect(overheard).toEqual([]);
      sub.unsubscribe();
      own.unsubscribe();
    } finally {
      await Promise.all([alpha.close(), beta.close()]);
    }
  });

  it('refuses a certificate of the CA that is mapped to no fleet', async () => {
    await expect(connectAs('stranger')).rejects.toThrow(/authorization/i);
  });
});

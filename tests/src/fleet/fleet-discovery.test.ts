import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeFleet, ResourceExhaustedError } from '@agent-bridge/bridgeclient';
import { natsDiscovery } from '@agent-bridge/bridgeclient/nats';
import { type Bridge, waitFor } from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOptions } from '../sdk/helpers.js';
import { fleetDaemon, useFleet } from './fleet-fixture.js';

// A BridgeFleet built from the fleet's directory on NATS, not from a list:
// daemons join and leave (TTL), placement reads their room from it.

const fleet = useFleet();
let sdk: BridgeFleet;
/** Daemon B (the one SIGKILLed), by name: `fleet.bridges` is in the order they came up. */
let daemonB: Bridge;
// One repository every daemon of the fleet may work in: placement is free to choose.
const shared = realpathSync(mkdtempSync(join(tmpdir(), 'fleet-repos-')));
const repo = join(shared, 'app');
mkdirSync(repo);

const daemon = async (daemonId: string, maxSessions: number): Promise<Bridge> => {
  const b = await fleetDaemon(fleet.cluster, fleet.pki, {
    daemonId,
    fleet: 'disc',
    providers: { echo: ['echo'] },
    config: {
      sessions: { max_per_project: maxSessions, max_global: maxSessions },
      allowed_paths: [shared],
    },
  });
  fleet.bridges.push(b);
  return b;
};

beforeAll(async () => {
  const { cluster } = fleet;
  const [a, b] = await Promise.all([daemon('daemon-a', 1), daemon('daemon-b', 4)]);
  daemonB = b;
  const { target: _, ...client } = clientOptions(a!);
  sdk = new BridgeFleet({
    discovery: {
      source: await natsDiscovery({
        servers: cluster.urls,
        tls: {
          ca: readFileSync(cluster.pki.caPath, 'utf8'),
          cert: cluster.pki.client.certPem,
          key: cluster.pki.client.keyPem,
        },
        fleet: 'disc',
      }),
      client,
      refreshMs: 200,
    },
  });
}, 120_000);

afterAll(() => {
  sdk?.close();
  rmSync(shared, { recursive: true, force: true });
});

const known = async () => (await sdk.status()).map((s) => s.daemon);

describe('a fleet found on NATS', () => {
  it('sees daemons join and leave, places sessions on the one with room, never on a departed one', async () => {
    await waitFor(
      'both daemons in the directory',
      async () => (await known()).length === 2,
      30_000,
      200,
    );
    expect(await known()).toEqual(['daemon-a', 'daemon-b']);
    // B has room for four, A for one: B first.
    const first = await sdk.startSession({ provider: 'echo', repoPath: repo });
    expect(first.daemon).toBe('daemon-b');
    // Routing by owner: the directory's session records say where it runs.
    expect((await sdk.getSession(first.sessionId)).daemon).toBe('daemon-b');

    // B is SIGKILLed: once its announcement runs out, it is gone from the fleet.
    const b = daemonB;
    const agentPid = (await sdk.getSession(first.sessionId)).pid;
    b.daemon.proc.kill('SIGKILL');
    process.kill(-agentPid, 'SIGKILL');
    await b.daemon.exited;
    await waitFor(
      'B to leave the directory',
      async () => !(await known()).includes('daemon-b'),
      30_000,
      200,
    );

    // New sessions go to A (the only one left), until A is full.
    const second = await sdk.startSession({ provider: 'echo', repoPath: repo });
    expect(second.daemon).toBe('daemon-a');
    await waitFor(
      'A to announce it is full',
      async () => {
        const refused = await sdk.startSession({ provider: 'echo', repoPath: repo }).then(
          () => undefined,
          (err: unknown) => err,
        );
        return refused instanceof ResourceExhaustedError;
      },
      30_000,
      200,
    );

    // The departed daemon's session is still found: served read-only by A, ended host_lost.
    const lost = await sdk.getSession(first.sessionId);
    expect(lost).toMatchObject({ daemon: 'daemon-a', status: 'FAILED' });

    // A daemon that joins is seen and used.
    await daemon('daemon-c', 2);
    await waitFor(
      'C in the directory',
      async () => (await known()).includes('daemon-c'),
      30_000,
      200,
    );
    const third = await sdk.startSession({
      provider: 'echo',
      repoPath: repo,
    });
    expect(third.daemon).toBe('daemon-c');
  }, 180_000);
});

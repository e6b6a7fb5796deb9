import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Bridge, waitFor, within, writeCtlProfile } from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startUi } from '../e2e/bridgectl-ui-process.js';
import { fleetDaemon, useFleet } from './fleet-fixture.js';

// `bridgectl ui --nats …`: the web console over a fleet found in its
// directory on NATS, as a user starts it: the daemons it shows come and go
// as the directory says, and sessions are placed by it.

const fleet = useFleet();
const shared = realpathSync(mkdtempSync(join(tmpdir(), 'fleet-console-')));
const repo = join(shared, 'app');
mkdirSync(repo);
let daemons: Bridge[];
let profiles: string;
let natsArgs: string[];

beforeAll(async () => {
  const { cluster, pki } = fleet;
  daemons = await Promise.all(
    ['daemon-a', 'daemon-b'].map((daemonId) =>
      fleetDaemon(cluster, pki, {
        daemonId,
        fleet: 'ops',
        providers: { echo: ['echo'] },
        config: { allowed_paths: [shared] },
      }),
    ),
  );
  fleet.bridges.push(...daemons);
  profiles = writeCtlProfile(shared, daemons[0]?.daemon.port as number, pki);
  const file = (name: string, text: string) => {
    writeFileSync(join(shared, name), text, { mode: 0o600 });
    return join(shared, name);
  };
  natsArgs = [
    ...cluster.urls.flatMap((url) => ['--nats', url]),
    ...['--fleet', 'ops', '--nats-ca', cluster.pki.caPath],
    ...['--nats-cert', file('nats.crt', cluster.pki.client.certPem)],
    ...['--nats-key', file('nats.key', cluster.pki.client.keyPem)],
  ];
}, 120_000);

afterAll(() => rmSync(shared, { recursive: true, force: true }));

interface Overview {
  fleet: boolean;
  daemons: { name: string; reachable: boolean }[];
}

describe('bridgectl ui over a fleet on NATS', () => {
  it('shows the daemons of the directory, places sessions by it, and drops a daemon that leaves', async () => {
    const run = startUi(profiles, natsArgs);
    try {
      const ui = await signIn(run);
      expect(run.output.text()).toContain('console for the fleet ops on NATS, project p1');
      const names = async () => {
        const o = (await (await ui.get('/api/overview')).json()) as Overview;
        expect(o.fleet).toBe(true);
        return o.daemons.filter((d) => d.reachable).map((d) => d.name);
      };
      await waitFor('both daemons on the overview', async () => (await names()).length === 2);
      expect(await names()).toEqual(['daemon-a', 'daemon-b']);

      const started = await ui.post('/api/sessions', { provider: 'echo', repoPath: repo });
      expect(started.status).toBe(201);
      const { sessionId } = (await started.json()) as { sessionId: string };
      const listed = (await (await ui.get('/api/sessions')).json()) as {
        sessions: { sessionId: string; daemon: string }[];
      };
      const home = listed.sessions.find((s) => s.sessionId === sessionId)?.daemon;
      expect(['daemon-a', 'daemon-b']).toContain(home);

      // The daemon that did not take it stops: the directory, and the page, lose it.
      const leaving = daemons[home === 'daemon-a' ? 1 : 0] as Bridge;
      await leaving.daemon.stop();
      await waitFor('one daemon on the overview', async () => (await names()).length === 1, 30_000);
      expect(await names()).toEqual([home]);
      expect((await ui.post(`/api/sessions/${sessionId}/stop`, {})).status).toBe(200);
      run.proc.kill('SIGINT');
      const [code] = await within('bridgectl ui to end on SIGINT', run.exited, 15_000);
      expect(code).toBe(0);
    } finally {
      run.proc.kill('SIGKILL');
    }
  }, 120_000);
});

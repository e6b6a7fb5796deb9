import { createServer } from 'node:net';
import {
  call,
  connect,
  REPO_ROOT,
  startDaemon,
  type TestDaemon,
  useDaemon,
} from '@agent-bridge/harness';
import { type BridgeServiceClient, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMinimalOutput, credentialVars, exampleEnv, run } from './run-example.js';

// The examples as a user runs them inside the workspace (from source, no
// build), against real daemons: a second one shares the first one's PKI and
// allowed repository, as the daemons of one fleet do.
const bridge = useDaemon();
let second: TestDaemon | undefined;
let secondClient: BridgeServiceClient | undefined;
beforeAll(async () => {
  second = await startDaemon({ pki: bridge.pki, config: { allowed_paths: [bridge.daemon.repo] } });
  secondClient = connect({
    port: second.port,
    caPem: bridge.pki.ca.certPem,
    client: bridge.pki.client,
  });
});
afterAll(async () => {
  secondClient?.close();
  await second?.stop();
});

const runExample = (file: string, vars: Record<string, string>) =>
  run(process.execPath, ['--conditions=development', '--import', 'tsx', `examples/${file}`], {
    cwd: REPO_ROOT,
    env: exampleEnv({
      ...credentialVars(bridge.pki, bridge.scratch),
      BRIDGE_REPO: bridge.daemon.repo,
      ...vars,
    }),
    timeoutMs: 45_000,
  });

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The ids of this project's sessions on a daemon, as its own ListSessions says. */
async function sessionsOn(client: BridgeServiceClient): Promise<string[]> {
  const res = await call(
    client,
    (c) => c.listSessions,
    { projectId: '', statuses: [], pageSize: 1000, pageToken: '' },
    bridge.md,
  );
  return res.sessions.map((s) => s.sessionId).sort();
}

describe('examples', () => {
  it('minimal-control-plane.mjs: two turns, the stream closed after the first and resumed by the same subscriber, a stop', async () => {
    const res = await runExample('minimal-control-plane.mjs', {
      BRIDGE_TARGET: `localhost:${bridge.daemon.port}`,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^connected to localhost:\d+: bridge \S+$/m);
    const { sessionId, events } = checkMinimalOutput(res.stdout);

    // The daemon agrees: the session is over, its last event is the last
    // one printed, and the subscriber acknowledged everything.
    const lastSeq = events.at(-1)!.seq;
    const info = await bridge.call((c) => c.getSession, { sessionId });
    expect(info.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    expect(info.lastSeq).toBe(BigInt(lastSeq));
    const cursor = await bridge.call((c) => c.ackEvents, {
      sessionId,
      subscriberId: 'minimal-control-plane',
      ackSeq: 0n,
      historyId: '',
    });
    expect(cursor.ackSeq).toBe(BigInt(lastSeq));
  }, 60_000);

  it('fleet.mjs: placement over two daemons by free capacity, routing, one list, a session found by another fleet, an unreachable daemon skipped', async () => {
    const [a, b, dead] = [
      `localhost:${bridge.daemon.port}`,
      `localhost:${second!.port}`,
      `localhost:${await closedPort()}`,
    ];
    const before = { a: await sessionsOn(bridge.client), b: await sessionsOn(secondClient!) };
    const res = await runExample('fleet.mjs', { BRIDGE_TARGETS: [a, b, dead].join(',') });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = res.stdout;

    // Four sessions, each where there was the most room: two on each live
    // daemon, none on the dead one.
    const placed = [...out.matchAll(/^started (\S+) on (\S+)$/gm)].map((m) => ({
      id: m[1]!,
      daemon: m[2]!,
    }));
    expect(placed).toHaveLength(4);
    const on = (d: string) =>
      placed
        .filter((p) => p.daemon === d)
        .map((p) => p.id)
        .sort();
    expect([on(a).length, on(b).length]).toEqual([2, 2]);
    expect(await sessionsOn(bridge.client)).toEqual([...before.a, ...on(a)].sort());
    expect(await sessionsOn(secondClient!)).toEqual([...before.b, ...on(b)].sort());

    // status() before and after placement: the dead daemon reported, the live ones counted.
    expect(out.split(`  ${dead}: unreachable (UNAVAILABLE)\n`)).toHaveLength(3);
    for (const d of [a, b]) {
      expect(out).toMatch(new RegExp(`^ {2}${d}: serving, 0 of \\d+ sessions`, 'm'));
      expect(out).toMatch(new RegExp(`^ {2}${d}: serving, 2 of \\d+ sessions`, 'm'));
    }
    // Each input reached its session's agent, on whichever daemon runs it.
    placed.forEach((p, i) => {
      expect(out).toContain(`${p.id}: mock[1]: received "task ${i + 1}"`);
    });
    // One list over both daemons, newest first; the dead one reported.
    const listed = out.slice(out.indexOf('running:\n'), out.indexOf('another fleet'));
    expect(listed).toBe(
      [
        'running:',
        ...placed.toReversed().map((p) => `  ${p.id} on ${p.daemon}`),
        `  ${dead} did not answer (UNAVAILABLE)`,
        '',
      ].join('\n'),
    );
    expect(out).toContain(`another fleet found ${placed[0]!.id} on ${a}\n`);
    expect(out.trimEnd().split('\n').at(-1)).toBe('stopped 4 sessions');
    for (const p of placed) {
      const client = p.daemon === a ? bridge.client : secondClient!;
      const info = await call(client, (c) => c.getSession, { sessionId: p.id }, bridge.md);
      expect([
        SessionStatus.SESSION_STATUS_STOPPING,
        SessionStatus.SESSION_STATUS_STOPPED,
      ]).toContain(info.status);
    }
  }, 60_000);
});

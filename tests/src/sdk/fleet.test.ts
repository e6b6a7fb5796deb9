/**
 * BridgeFleet over real daemons with different limits and providers:
 * placement by free capacity among the daemons that offer the provider,
 * routing of every later call to the session's daemon (also from a fleet
 * that did not start it), and daemons that are gone or hung skipped and
 * reported without waiting on them.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BridgeClient,
  BridgeError,
  BridgeFleet,
  type BridgeFleetOptions,
  DeadlineExceededError,
  EventStream,
  FailedPreconditionError,
  type FleetDaemon,
  NotFoundError,
  ResourceExhaustedError,
  type SessionEvent,
  UnavailableError,
} from '@agent-bridge/bridgeclient';
import {
  startDaemon,
  startTcpProxy,
  type TcpProxy,
  type TestDaemon,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clientOptions, closeClients, iterationError, rejection, sdkClient } from './helpers.js';

// One repository path valid on both daemons, as on hosts that share a layout.
const shared = realpathSync(
  mkdtempSync(join(process.env.BRIDGE_TEST_TMPDIR ?? tmpdir(), 'fleet-repos-')),
);
const repoPath = shared;

// "one" has room for 4 sessions of the project and only the mock; "two"
// has room for 2 and also the echo agent.
const one = useDaemon({ config: { sessions: { max_per_project: 4 }, allowed_paths: [shared] } });
const two = useDaemon({
  config: { sessions: { max_per_project: 2 }, allowed_paths: [shared] },
  fakeProviders: { echo: ['echo'] },
});

const fleets: BridgeFleet[] = [];
const extras: { proxies: TcpProxy[]; daemons: TestDaemon[] } = { proxies: [], daemons: [] };
afterEach(async () => {
  for (const f of fleets.splice(0)) f.close();
  closeClients();
  for (const p of extras.proxies.splice(0)) await p.close();
  for (const d of extras.daemons.splice(0)) if (d.proc.exitCode === null) await d.stop();
});
afterAll(() => rmSync(shared, { recursive: true, force: true }));

// Calls default to a very long deadline, so that anything bounded only by
// it shows as a hang; probes have a short one.
const PROBE_MS = 500;
const HANG_BOUND_MS = 5_000; // ten probe timeouts: far below the call deadline
const member = (name: string, b: Parameters<typeof clientOptions>[0], over = {}): FleetDaemon => ({
  name,
  ...clientOptions(b, { timeouts: { callMs: 120_000 }, ...over }),
});
const fleetOf = (daemons: FleetDaemon[], o: Partial<BridgeFleetOptions> = {}) => {
  const f = new BridgeFleet({ daemons, probeTimeoutMs: PROBE_MS, ...o });
  fleets.push(f);
  return f;
};
const both = () => [member('one', one), member('two', two)];
/** A member that accepts connections and never answers: a stalling proxy in front of "one". */
async function hungMember(): Promise<FleetDaemon> {
  const hung = await startTcpProxy(one.daemon.port);
  hung.mode = 'stall';
  extras.proxies.push(hung);
  return member('hung', one, { target: hung.target });
}

const freeOf = async (c: BridgeClient) => (await c.health()).freeCapacity;

async function stopAll(...clients: BridgeClient[]) {
  for (const c of clients) {
    for await (const s of c.sessions({ statuses: ['RUNNING', 'STARTING'] })) {
      await c.stopSession(s.sessionId, { force: true });
    }
  }
  await waitFor('every session to end', async () => {
    for (const c of clients) if ((await c.health()).projectActiveSessions > 0) return false;
    return true;
  });
}

describe('placement', () => {
  it('puts each session on the daemon with the most room that offers its provider', async () => {
    const d1 = sdkClient(one);
    const d2 = sdkClient(two);
    await stopAll(d1, d2);
    const fleet = fleetOf(both());
    const placed: string[] = [];
    // 4 + 2 places: each start goes where the most room is (either, on a tie).
    for (let i = 0; i < 6; i++) {
      const room = { one: await freeOf(d1), two: await freeOf(d2) };
      const s = await fleet.startSession({ provider: 'mock', repoPath });
      const most = Math.max(room.one, room.two);
      expect(room[s.daemon as 'one' | 'two'], `start ${i}: ${JSON.stringify(room)}`).toBe(most);
      expect((await fleet.clients.get(s.daemon)!.getSession(s.sessionId)).status).toBe('RUNNING');
      placed.push(s.daemon);
    }
    expect(placed.slice(0, 2)).toEqual(['one', 'one']);
    expect(placed.filter((d) => d === 'one')).toHaveLength(4);
    expect(placed.filter((d) => d === 'two')).toHaveLength(2);
    // No room anywhere now: the fleet says so and starts nothing.
    const full = await fleet.startSession({ provider: 'mock', repoPath }).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(ResourceExhaustedError);
    expect((full as ResourceExhaustedError).message).toContain('has room for another session');
    expect(
      (await d1.health()).projectActiveSessions + (await d2.health()).projectActiveSessions,
    ).toBe(6);
    await stopAll(d1, d2);
  });

  it('a provider only one daemon offers goes there even when the other has more room', async () => {
    const d1 = sdkClient(one);
    const d2 = sdkClient(two);
    await stopAll(d1, d2);
    const fleet = fleetOf(both());
    expect(await freeOf(d1)).toBeGreaterThan(await freeOf(d2));
    const s = await fleet.startSession({ provider: 'echo', repoPath });
    expect(s.daemon).toBe('two');
    expect((await d2.getSession(s.sessionId)).provider).toBe('echo');
    // One that no daemon offers is placed nowhere, and nothing starts.
    await expect(fleet.startSession({ provider: 'nope', repoPath })).rejects.toBeInstanceOf(
      FailedPreconditionError,
    );
    expect((await d1.health()).projectActiveSessions).toBe(0);
    expect((await d2.health()).projectActiveSessions).toBe(1);
    await stopAll(d1, d2);
  });
});

describe('routing', () => {
  it('every call reaches the daemon of the session, also from a fleet that did not start it', async () => {
    const d1 = sdkClient(one);
    const d2 = sdkClient(two);
    const starter = fleetOf(both());
    const echo = await starter.startSession({ provider: 'echo', repoPath });
    const mock = await starter.startSession({ provider: 'mock', repoPath, daemon: 'one' });
    expect([echo.daemon, mock.daemon]).toEqual(['two', 'one']);
    const other = fleetOf(both());
    expect((await other.getSession(echo.sessionId)).daemon).toBe('two');
    expect((await other.getSession(mock.sessionId)).daemon).toBe('one');
    const sent = await other.sendInput(echo.sessionId, 'routed');
    const seen: SessionEvent[] = [];
    for await (const e of other.events(echo.sessionId, { afterSeq: 0 })) {
      seen.push(e);
      if (e.text === 'echo: routed') break;
    }
    expect(seen.find((e) => e.type === 'INPUT_RECEIVED')?.seq).toBe(sent.seq);
    expect(await other.interruptTurn(mock.sessionId)).toEqual({ interrupted: false, turnId: '' });
    // The mock's request is refused by policy at once: the late answer reaches its daemon, which
    // says so (another daemon would not know the session: NOT_FOUND).
    await other.sendInput(mock.sessionId, '/tool Bash ls');
    let requestId = '';
    for await (const e of other.events(mock.sessionId, { afterSeq: 0 })) {
      if (e.type === 'PERMISSION_REQUESTED') requestId = String(e.data?.request_id);
      if (e.type === 'TURN_COMPLETED') break;
    }
    const late = await rejection(
      other.respondPermission(mock.sessionId, requestId, 'allow_once'),
      FailedPreconditionError,
      'FAILED_PRECONDITION',
      'RespondPermission',
    );
    expect(late.details).toBe(
      `permission request ${requestId} is already resolved: deny (decided by policy)`,
    );
    expect(['STOPPING', 'STOPPED']).toContain(await other.stopSession(echo.sessionId));
    expect(['STOPPING', 'STOPPED']).toContain((await d2.getSession(echo.sessionId)).status);
    await rejection(d1.getSession(echo.sessionId), NotFoundError, 'NOT_FOUND', 'GetSession');
    await starter.stopSession(mock.sessionId, { force: true });
    expect(['STOPPING', 'STOPPED']).toContain((await d1.getSession(mock.sessionId)).status);
    // A session no daemon has.
    await expect(other.getSession('0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e')).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  // The same shape as BridgeClient.events: the stream itself, used without awaiting anything first.
  it('events() returns the stream at once, like the client; finding the daemon is part of the loop', async () => {
    const starter = fleetOf(both());
    const s = await starter.startSession({ provider: 'mock', repoPath, daemon: 'two' });
    try {
      await starter.sendInput(s.sessionId, 'hello');
      const other = fleetOf(both());
      const stream: EventStream = other.events(s.sessionId, { afterSeq: 0 });
      expect(stream).toBeInstanceOf(EventStream);
      expect(stream.sessionId).toBe(s.sessionId);
      expect(stream.processedSeq).toBeUndefined();
      expect(stream.historyId).toBe('');
      const events = stream[Symbol.asyncIterator]();
      const first = await events.next();
      expect(first.done).toBe(false);
      expect(first.value?.seq).toBe(1);
      // It reads the daemon that runs the session: that daemon's history.
      expect(stream.historyId).toBe((await sdkClient(two).health()).historyId);
      expect(stream.processedSeq).toBe(0);
      stream.close();
      expect(await events.next()).toEqual({ done: true, value: undefined });
      expect(stream.processedSeq).toBe(1);
      expect(() => stream[Symbol.asyncIterator]()).toThrow(
        'an EventStream can be iterated only once',
      );
    } finally {
      await starter.stopSession(s.sessionId, { force: true });
    }
  });

  it('events() of a session no daemon has: the NotFoundError a client gives, from the loop', async () => {
    const fleet = fleetOf(both());
    const unknown = '0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e';
    const fromClient = await iterationError(sdkClient(one).events(unknown));
    expect(fromClient).toBeInstanceOf(NotFoundError);
    // Nothing is asked before the loop starts: the call itself neither throws nor rejects.
    const stream = fleet.events(unknown);
    const fromFleet = (await within(
      'the loop to fail',
      iterationError(stream),
      HANG_BOUND_MS,
    )) as NotFoundError;
    expect(fromFleet).toBeInstanceOf(NotFoundError);
    expect(fromFleet.constructor).toBe((fromClient as Error).constructor);
    expect(fromFleet.code).toBe('NOT_FOUND');
    expect(fromFleet.message).toBe(`session ${unknown} is on no daemon of the fleet`);
    // Each daemon's own answer is its cause.
    expect(fromFleet.cause).toBeInstanceOf(AggregateError);
    const answers = (fromFleet.cause as AggregateError).errors as BridgeError[];
    expect(answers.map((e) => [e.constructor, e.method])).toEqual([
      [NotFoundError, 'GetSession'],
      [NotFoundError, 'GetSession'],
    ]);
  });

  it('a closed fleet ends its streams, found or not, with the CANCELLED error of a closed client', async () => {
    const fleet = fleetOf(both());
    const s = await fleet.startSession({ provider: 'mock', repoPath, daemon: 'one' });
    try {
      const reading = fleet.events(s.sessionId, { afterSeq: 0 });
      const notStarted = fleet.events(s.sessionId);
      const ended = iterationError(reading, () => fleet.close());
      for (const err of [await ended, await iterationError(notStarted)]) {
        expect(err).toBeInstanceOf(BridgeError);
        expect((err as BridgeError).code).toBe('CANCELLED');
        expect((err as Error).message).toBe(`the client was closed (session ${s.sessionId})`);
      }
    } finally {
      await sdkClient(one).stopSession(s.sessionId, { force: true });
    }
  });

  it("listSessions merges both daemons' sessions, newest first", async () => {
    const d1 = sdkClient(one);
    const d2 = sdkClient(two);
    const fleet = fleetOf(both());
    await fleet.startSession({ provider: 'mock', repoPath, daemon: 'two' });
    await fleet.startSession({ provider: 'mock', repoPath, daemon: 'one' });
    await fleet.startSession({ provider: 'echo', repoPath });
    const { sessions, unreachable } = await fleet.listSessions();
    expect(unreachable).toEqual([]);
    const direct = [
      ...(await d1.listSessions({ pageSize: 1000 })).sessions.map((s) => `one ${s.sessionId}`),
      ...(await d2.listSessions({ pageSize: 1000 })).sessions.map((s) => `two ${s.sessionId}`),
    ];
    expect(sessions.map((s) => `${s.daemon} ${s.sessionId}`).sort()).toEqual(direct.sort());
    const times = sessions.map((s) => s.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set(sessions.slice(0, 3).map((s) => s.daemon))).toEqual(new Set(['one', 'two']));
    await stopAll(d1, d2);
  });
});

describe('daemons that are gone or hung', () => {
  it('a stopped daemon is reported unreachable, skipped for placement and listed as unreachable, promptly', async () => {
    // A third daemon with the most room of all, then stopped: its port is closed.
    const d3 = await startDaemon({
      pki: one.pki,
      config: { sessions: { max_per_project: 10 }, allowed_paths: [shared] },
    });
    extras.daemons.push(d3);
    const third = { pki: one.pki, daemon: d3 };
    const fleet = fleetOf([...both(), member('three', third)], { probeTtlMs: 0 });
    const first = await fleet.startSession({ provider: 'mock', repoPath });
    expect(first.daemon).toBe('three');
    await d3.stop();
    const status = await within('status()', fleet.status(), HANG_BOUND_MS);
    const byName = new Map(status.map((s) => [s.daemon, s]));
    expect(byName.get('one')?.reachable).toBe(true);
    expect(byName.get('two')?.reachable).toBe(true);
    const gone = byName.get('three');
    expect(gone?.reachable).toBe(false);
    expect(gone?.reachable === false && gone.error).toBeInstanceOf(UnavailableError);
    const next = await within(
      'a placement',
      fleet.startSession({ provider: 'mock', repoPath }),
      HANG_BOUND_MS,
    );
    expect(next.daemon).not.toBe('three');
    const list = await within('listSessions()', fleet.listSessions(), HANG_BOUND_MS);
    expect(list.unreachable.map((u) => u.daemon)).toEqual(['three']);
    expect(list.unreachable[0]!.error).toBeInstanceOf(UnavailableError);
    expect(list.sessions.map((s) => s.sessionId)).toContain(next.sessionId);
    expect(list.sessions.map((s) => s.sessionId)).not.toContain(first.sessionId);
    await stopAll(sdkClient(one), sdkClient(two));
  });

  it('a hung daemon (accepts, never answers) is reported and skipped within the probe timeout', async () => {
    const fleet = fleetOf([...both(), await hungMember()]);
    const status = await within('status()', fleet.status(), HANG_BOUND_MS);
    const h = status.find((s) => s.daemon === 'hung');
    expect(h?.reachable).toBe(false);
    expect(h?.reachable === false && h.error).toBeInstanceOf(DeadlineExceededError);
    const s = await within(
      'a placement',
      fleet.startSession({ provider: 'mock', repoPath }),
      HANG_BOUND_MS,
    );
    expect(['one', 'two']).toContain(s.daemon);
    await stopAll(sdkClient(one), sdkClient(two));
  });

  // One hung daemon must not hold the merged list beyond the probe timeout.
  it('listSessions with a hung daemon answers within the probe timeout', async () => {
    const fleet = fleetOf([...both(), await hungMember()]);
    const list = await within('listSessions()', fleet.listSessions(), HANG_BOUND_MS);
    expect(list.unreachable.map((u) => u.daemon)).toEqual(['hung']);
  });

  // The owner answering is enough: a hung daemon must not hold up a session on a healthy one.
  it('locating a session with a hung daemon in the fleet answers within the probe timeout', async () => {
    const starter = fleetOf(both());
    const s = await starter.startSession({ provider: 'mock', repoPath, daemon: 'one' });
    const other = fleetOf([...both(), await hungMember()]);
    try {
      const found = await within('getSession()', other.getSession(s.sessionId), HANG_BOUND_MS);
      expect(found.daemon).toBe('one');
    } finally {
      await starter.stopSession(s.sessionId, { force: true });
    }
  });
});

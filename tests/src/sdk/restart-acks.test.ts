/**
 * Acknowledgements cannot cross histories. A reader acknowledging every
 * event reads a session through a proxy; the daemon is SIGKILLed and a
 * daemon with a new session store (as if the store had been wiped) takes
 * its place behind the proxy, and a new session with the same id is
 * started on it. The old stream ends with CursorLostError, none of its
 * acknowledgements reaches the new daemon (its audit file has none), and
 * a new reader with the same subscriber id starts at seq 1. The daemon
 * itself refuses an ack that names another history, moving no cursor.
 */
import { randomUUID } from 'node:crypto';
import { CursorLostError, FailedPreconditionError } from '@agent-bridge/bridgeclient';
import {
  startDaemon,
  startTcpProxy,
  type TcpProxy,
  type TestDaemon,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';
import { closeClients, sdkClient } from './helpers.js';

// A long production: the reader is still reading (and acking) when the daemon dies.
const STEADY = { steady: ['steady', '1000000', '10'] };

const bridge = useDaemon({ fakeProviders: STEADY });

const daemons: TestDaemon[] = [];
let proxy: TcpProxy | undefined;
afterAll(async () => {
  closeClients();
  await proxy?.close();
  for (const d of daemons)
    if (d.proc.exitCode === null && d.proc.signalCode === null) await d.stop();
});

const fast = { retry: { initialDelayMs: 10, maxDelayMs: 200 } };

describe('acknowledgements across a lost history (a new store behind the same address)', () => {
  it('the old stream fails with CursorLostError, no ack of it reaches the new daemon, a new reader starts at seq 1', {
    timeout: 120_000,
  }, async () => {
    const start = async () => {
      const d = await startDaemon({ pki: bridge.pki, fakeProviders: STEADY });
      daemons.push(d);
      return d;
    };
    const d1 = await start();
    const p = await startTcpProxy(d1.port);
    proxy = p;
    const sessionId = randomUUID();
    const old = sdkClient(bridge, { ...fast, target: p.target, jwt: { subject: 'old-reader' } });
    await old.startSession({ sessionId, provider: 'steady', repoPath: d1.repo });
    const read: number[] = [];
    const oldStream = old.events(sessionId, { subscriberId: 'cp', ackEvery: 1 });
    const ended = (async () => {
      for await (const e of oldStream) read.push(e.seq);
    })().then(
      () => new Error('the old stream ended without an error'),
      (err: unknown) => err,
    );
    await waitFor('the old reader to be well into the session', () => read.length >= 2000);

    d1.proc.kill('SIGKILL');
    await d1.exited;
    const d2 = await start();
    // The same session id again, on the new daemon, before the old reader can reach it.
    const beside = sdkClient({ pki: bridge.pki, daemon: d2 }, { jwt: { subject: 'starter' } });
    await beside.startSession({ sessionId, provider: 'steady', repoPath: d2.repo });
    await waitFor(
      'the new session to produce',
      async () => (await beside.getSession(sessionId)).lastSeq > 100,
    );
    p.retarget(d2.port);
    p.cutAll();

    const lost = await within('the old stream to end', ended, 60_000);
    expect(lost).toBeInstanceOf(CursorLostError);
    const newHistory = (await beside.health()).historyId;
    expect(lost).toMatchObject({ instanceId: newHistory });
    expect(oldStream.historyId).not.toBe(newHistory);

    // A call of the old client after its stream ended: once the new daemon
    // has audited it, anything the old client sent before it is audited too.
    await old.health();
    await waitFor('the new daemon to audit the old client`s Health', () =>
      d2.audit.all().some((r) => r.method === 'Health' && r.sub === 'old-reader'),
    );
    const oldCalls = d2.audit.all().filter((r) => r.sub === 'old-reader');
    expect(oldCalls.filter((r) => r.method === 'AckEvents')).toEqual([]);
    expect(oldCalls.some((r) => r.method === 'StreamEventBatches')).toBe(false);

    // A new reader with the same subscriber id: the new history from its start.
    const fresh = sdkClient(bridge, { ...fast, target: p.target, jwt: { subject: 'new-reader' } });
    const first: number[] = [];
    for await (const e of fresh.events(sessionId, { subscriberId: 'cp' })) {
      first.push(e.seq);
      if (first.length === 3) break;
    }
    expect(first).toEqual([1, 2, 3]);
  });

  it('the daemon refuses an ack that names another history: FAILED_PRECONDITION, no cursor moved', async () => {
    const c = sdkClient(bridge);
    const { sessionId } = await c.startSession({
      provider: 'steady',
      repoPath: bridge.daemon.repo,
    });
    await waitFor('some events', async () => (await c.getSession(sessionId)).lastSeq > 10);
    const history = (await c.health()).historyId;
    expect(await c.ackEvents(sessionId, 'cp', 5, { historyId: history })).toBe(5);
    const other = randomUUID();
    const err = await c.ackEvents(sessionId, 'cp', 9, { historyId: other }).catch((e) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', method: 'AckEvents' });
    expect(err.message).toBe(
      `AckEvents: history_id "${other}" is not this daemon's history ${history}: the acknowledged events were read before its session store was new or wiped (or from another daemon), so no cursor was moved`,
    );
    // Nothing moved; an ack with no history (a generic client) still works.
    expect(await c.ackEvents(sessionId, 'cp', 0)).toBe(5);
    expect(await c.ackEvents(sessionId, 'cp', 7)).toBe(7);
    await c.stopSession(sessionId, { force: true });
  });
});

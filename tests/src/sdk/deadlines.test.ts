/**
 * Deadlines and aborts: a call past its deadline fails with
 * DeadlineExceededError, an AbortSignal cancels a call or an event stream
 * with the signal's own reason, and afterwards (the client closed) the
 * process holds no timer or socket the SDK made.
 *
 * Leaks are measured with process.getActiveResourcesInfo(), which lists the
 * handles that keep the event loop alive: a type may only count as many
 * entries as before the test began (the daemon fixture's child process and
 * pipes, vitest's own timers are there before and after; some of them may
 * end meanwhile, so "no more than before" rather than "the same").
 */
import { randomUUID } from 'node:crypto';
import {
  type BridgeClient,
  DeadlineExceededError,
  type SessionEvent,
  UnavailableError,
} from '@agent-bridge/bridgeclient';
import { startTcpProxy, type TcpProxy, useDaemon, waitFor, within } from '@agent-bridge/harness';
import { afterEach, describe, expect, it } from 'vitest';
import { closeClients, iterationError, range, rejection, sdkClient } from './helpers.js';

const bridge = useDaemon({
  fakeProviders: { lines: ['lines', '2000'], slow: ['slow-start', '20000'] },
});

const proxies: TcpProxy[] = [];
const proxy = async (mode: TcpProxy['mode']) => {
  const p = await startTcpProxy(bridge.daemon.port);
  p.mode = mode;
  proxies.push(p);
  return p;
};
afterEach(async () => {
  closeClients();
  for (const p of proxies.splice(0)) await p.close();
});

type Resources = Map<string, number>;
const resources = (): Resources => {
  const m = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
};
/** Handles of a type beyond what `before` had, e.g. ["Timeout +1"]. */
const extra = (before: Resources) =>
  [...resources()].flatMap(([type, n]) =>
    n > (before.get(type) ?? 0) ? [`${type} +${n - (before.get(type) ?? 0)}`] : [],
  );
const noneBeyond = (before: Resources, timeoutMs = 5_000) =>
  waitFor(
    () => `no handles beyond the ones before the test; extra: ${extra(before).join(', ')}`,
    () => extra(before).length === 0,
    timeoutMs,
  );

const started = async (c: BridgeClient, provider: string, lastSeq: number) => {
  const { sessionId } = await c.startSession({ provider, repoPath: bridge.daemon.repo });
  await waitFor(`seq ${lastSeq}`, async () => (await c.getSession(sessionId)).lastSeq >= lastSeq);
  return sessionId;
};

/** A Health call of `c` with a deadline of `ms`, which must fail with DeadlineExceededError. */
const healthPastDeadline = (c: BridgeClient, ms: number) =>
  rejection(c.health({ timeoutMs: ms }), DeadlineExceededError, 'DEADLINE_EXCEEDED', 'Health');

describe('deadlines', () => {
  it('a call to a daemon that never answers fails with DeadlineExceededError at its deadline', async () => {
    const stalled = await proxy('stall');
    const c = sdkClient(bridge, { target: stalled.target });
    await healthPastDeadline(c, 300);
    const short = sdkClient(bridge, { target: stalled.target, timeouts: { callMs: 300 } });
    await rejection(
      short.getSession(randomUUID()),
      DeadlineExceededError,
      'DEADLINE_EXCEEDED',
      'GetSession',
    );
    // An event stream treats a daemon that never answers as one it cannot
    // reach: it keeps trying (each connection attempt cut off at connectMs)
    // for its reconnect budget, then fails with UnavailableError.
    const streaming = sdkClient(bridge, {
      target: stalled.target,
      timeouts: { connectMs: 200, reconnectMs: 1000 },
      retry: { initialDelayMs: 20, maxDelayMs: 50 },
    });
    const accepted = stalled.accepted;
    const err = await iterationError(streaming.events(randomUUID()));
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toMatch(/^Health: /);
    // More than one connection was tried: stuck attempts were given up.
    expect(stalled.accepted).toBeGreaterThan(accepted + 1);
  });

  it('a daemon that refuses every connection: UnavailableError once the retries are spent', async () => {
    const refusing = await proxy('refuse');
    const c = sdkClient(bridge, {
      target: refusing.target,
      retry: { initialDelayMs: 20, maxDelayMs: 50 },
    });
    await rejection(c.health(), UnavailableError, 'UNAVAILABLE', 'Health');
    expect(refusing.accepted).toBeGreaterThan(0);
  });
});

describe('aborts', () => {
  it("a unary call in flight rejects with the signal's reason", async () => {
    const c = sdkClient(bridge);
    const sessionId = randomUUID();
    const ac = new AbortController();
    const reason = new Error('the caller gave up');
    // The slow agent takes 20 s to be ready: StartSession is still running when we abort.
    const starting = c.startSession(
      { sessionId, provider: 'slow', repoPath: bridge.daemon.repo },
      {
        signal: ac.signal,
      },
    );
    await waitFor('the daemon to be starting the session', async () =>
      (await c.listSessions()).sessions.some((s) => s.sessionId === sessionId),
    );
    ac.abort(reason);
    await expect(within('the aborted call', starting, 5_000)).rejects.toBe(reason);
    await c.stopSession(sessionId, { force: true });
  });

  it('an already aborted signal rejects at once and sends nothing', async () => {
    const c = sdkClient(bridge);
    const reason = new Error('aborted before');
    const signal = AbortSignal.abort(reason);
    const sessionId = randomUUID();
    await expect(
      c.startSession({ sessionId, provider: 'mock', repoPath: bridge.daemon.repo }, { signal }),
    ).rejects.toBe(reason);
    expect(await iterationError(c.events(sessionId, { signal }))).toBe(reason);
    expect((await c.listSessions()).sessions.map((s) => s.sessionId)).not.toContain(sessionId);
  });

  it("an event stream waiting for live events ends with the signal's reason", async () => {
    const c = sdkClient(bridge);
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const ac = new AbortController();
    const reason = new Error('no more events wanted');
    const stream = c.events(sessionId, { signal: ac.signal, subscriberId: 'aborted' });
    const got: number[] = [];
    const ended = iterationError(stream, (e) => got.push(e.seq));
    await waitFor('the first event to be processed', () => stream.processedSeq === 1);
    ac.abort(reason);
    expect(await within('the aborted iteration', ended, 5_000)).toBe(reason);
    expect(got).toEqual([1]);
    // What was processed was acknowledged.
    expect(await c.ackEvents(sessionId, 'aborted', 0)).toBe(1);
    await c.stopSession(sessionId, { force: true });
  });

  it('a retry pause is cut short by the abort', async () => {
    const refusing = await proxy('refuse');
    // Pauses of up to a minute between attempts: only the abort can end this call.
    const c = sdkClient(bridge, {
      target: refusing.target,
      retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      timeouts: { callMs: 600_000 },
    });
    const ac = new AbortController();
    const reason = new Error('stop retrying');
    const call = c.health({ signal: ac.signal });
    await waitFor('the first attempt to fail', () => refusing.accepted >= 1);
    ac.abort(reason);
    await expect(within('the aborted call', call, 5_000)).rejects.toBe(reason);
  });
});

describe('ending an iteration from its loop body', () => {
  // A replay of 2000 events: with batches, the daemon sends 512 at a time.
  const endsAtTen = async (batch: boolean, how: 'close' | 'abort') => {
    const c = sdkClient(bridge);
    const sessionId = await started(c, 'lines', 2002);
    const ac = new AbortController();
    const reason = new Error('enough');
    const stream = c.events(sessionId, { batch, signal: ac.signal });
    const got: number[] = [];
    let error: unknown;
    try {
      for await (const e of stream) {
        got.push(e.seq);
        if (e.seq === 10) how === 'close' ? stream.close() : ac.abort(reason);
      }
    } catch (err) {
      error = err;
    }
    expect(got).toEqual(range(1, 10));
    expect(error).toBe(how === 'close' ? undefined : reason);
    expect(stream.processedSeq).toBe(10);
    await c.stopSession(sessionId, { force: true });
  };
  it('close() ends it after that event (batch: false)', () => endsAtTen(false, 'close'));
  it('abort ends it after that event (batch: false)', () => endsAtTen(false, 'abort'));
  // A batch holds up to 512 events: none after the one being processed may reach the body.
  it('close() ends it after that event (batch: true)', () => endsAtTen(true, 'close'));
  it('abort ends it after that event (batch: true)', () => endsAtTen(true, 'abort'));
});

describe('close() and abort around reconnects and acknowledgements', () => {
  it('close() before the iteration starts ends it without an error', async () => {
    const c = sdkClient(bridge);
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const stream = c.events(sessionId);
    stream.close();
    const got: SessionEvent[] = [];
    try {
      for await (const e of stream) got.push(e);
      expect(got).toEqual([]);
    } finally {
      await c.stopSession(sessionId, { force: true });
    }
  });

  it('close() while the stream waits to reconnect ends it without an error', async () => {
    const c = sdkClient(bridge);
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const p = await proxy('forward');
    // Pauses of up to a minute: the stream is surely waiting when closed.
    const viaProxy = sdkClient(bridge, {
      target: p.target,
      retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const stream = viaProxy.events(sessionId);
    // Settles with the error the iteration ended with, if any.
    const reading = (async () => {
      for await (const e of stream) {
        if (e.seq === 1) {
          p.mode = 'refuse';
          p.cutAll();
        }
      }
    })().catch((err: unknown) => err);
    try {
      await waitFor('the stream to lose its connection', () => p.cuts > 0);
      const accepted = p.accepted;
      await waitFor('an attempt to reconnect to fail', () => p.accepted > accepted);
      stream.close();
      expect(await within('the closed iteration', reading, 5_000)).toBeUndefined();
      expect(stream.processedSeq).toBe(1);
    } finally {
      await c.stopSession(sessionId, { force: true });
    }
  });

  // The final acknowledgement must not hold an abort up while the daemon cannot be reached.
  it('an abort ends the iteration promptly while acknowledgements cannot reach the daemon', async () => {
    const c = sdkClient(bridge);
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const p = await proxy('forward');
    const viaProxy = sdkClient(bridge, { target: p.target });
    const ac = new AbortController();
    const reason = new Error('abort now');
    const stream = viaProxy.events(sessionId, { subscriberId: 'hung-acks', signal: ac.signal });
    // On the first event the daemon hangs: the acknowledgement of that event
    // and every reconnect wait on a connection that never completes.
    const ended = iterationError(stream, () => {
      p.mode = 'stall';
      p.cutAll();
    });
    try {
      await waitFor('the stream to lose its connection', () => p.cuts > 0);
      await waitFor('a connection to the hung daemon', () => p.open > 0);
      ac.abort(reason);
      expect(await within('the aborted iteration', ended, 3_000)).toBe(reason);
    } finally {
      await c.stopSession(sessionId, { force: true });
    }
  });
});

describe('no leaks', () => {
  it('after deadlines, aborts and close, the SDK leaves no timer or socket behind', async () => {
    const before = resources();
    const c = sdkClient(bridge);
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    // A live stream aborted, a call aborted in flight, a call past its deadline.
    const ac = new AbortController();
    const stream = c.events(sessionId, { signal: ac.signal, subscriberId: 'leaks' });
    const ended = iterationError(stream);
    await waitFor('the first event to be processed', () => stream.processedSeq === 1);
    ac.abort(new Error('done'));
    await ended;
    const slowId = randomUUID();
    const inFlight = new AbortController();
    const starting = c
      .startSession(
        { sessionId: slowId, provider: 'slow', repoPath: bridge.daemon.repo },
        {
          signal: inFlight.signal,
        },
      )
      .catch((e: unknown) => e);
    await waitFor('the slow start to be under way', async () =>
      (await c.listSessions()).sessions.some((s) => s.sessionId === slowId),
    );
    inFlight.abort(new Error('gave up'));
    await starting;
    await rejection(
      c.interruptTurn(sessionId, { timeoutMs: 1 }),
      DeadlineExceededError,
      'DEADLINE_EXCEEDED',
      'InterruptTurn',
    );
    // Retries paused for a long time, then aborted.
    const refusing = await proxy('refuse');
    const retrying = sdkClient(bridge, {
      target: refusing.target,
      retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const paused = new AbortController();
    const call = retrying.health({ signal: paused.signal }).catch((e: unknown) => e);
    await waitFor('the first attempt to fail', () => refusing.accepted >= 1);
    paused.abort(new Error('stop'));
    await call;
    await c.stopSession(slowId, { force: true });
    await c.stopSession(sessionId, { force: true });
    closeClients();
    await refusing.close();
    await noneBeyond(before);
  });

  // A known limitation of grpc-js 1.14 (documented in docs/sdk.md): a
  // connection attempt stuck in the TLS handshake (a daemon that accepted
  // the TCP connection and hangs) outlives close(), since grpc-js's connector
  // has no handshake timeout and closing the channel does not destroy the
  // pending socket; it stays open until the peer closes it. This test fails
  // (as expected) until grpc-js, or a workaround here, ends that socket.
  it.fails('closing a client that waited on a hung daemon leaves no socket behind (grpc-js limitation)', async () => {
    const before = resources();
    const stalled = await proxy('stall');
    const c = sdkClient(bridge, { target: stalled.target });
    await healthPastDeadline(c, 200);
    closeClients();
    // The proxy ends its side of a connection once the client's side is closed.
    await waitFor(
      () => `the client to close its connection (${stalled.open} open)`,
      () => stalled.open === 0,
      3_000,
    );
    await stalled.close();
    await noneBeyond(before, 3_000);
  });
});

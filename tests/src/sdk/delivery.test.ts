/**
 * Delivery through faults: the SDK reaches the daemon through a loopback
 * TCP proxy that cuts every connection on demand. An EventStream hands the
 * loop every event once, in order, with no gap, through 50 cuts in replay
 * and live tail; a loop body that throws gets the same event again from the
 * next stream; a SendInput whose answer is lost is retried without being
 * written twice.
 */
import type { BridgeClient, SessionEvent } from '@agent-bridge/bridgeclient';
import {
  seededRandom,
  startTcpProxy,
  type TcpProxy,
  testSeed,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeClients, range, sdkClient, seqsOf } from './helpers.js';

// Stored before the reader starts: the replay. The daemon sends a replay
// in batches of up to 512 events, and a cut falls on the stream only once
// per batch (the rest of a batch already received is still delivered), so
// the replay is long enough for 25 cuts.
const LINES = 15_000;
const INPUTS = 400; // each answered by one echo line: the live tail

const bridge = useDaemon({
  config: { sessions: { event_buffer_size: 20_000 } },
  fakeProviders: { lines: ['lines', String(LINES)], echo: ['echo'] },
});

let proxy: TcpProxy;
beforeEach(async () => {
  proxy = await startTcpProxy(bridge.daemon.port);
});
afterEach(async () => {
  closeClients();
  await proxy.close();
});

/**
 * A client that reaches the daemon only through the proxy, retrying quickly
 * and pinging every second. A cut that resets the connection while the
 * client is writing to it (an AckEvents, a WINDOW_UPDATE) can leave Node's
 * TLS socket, and so the HTTP/2 session and every call on it, without a
 * 'close' event: only the keepalive ping notices, 40 s later with the
 * default keepalive (see `keepalive.timeoutMs` in docs/sdk.md).
 */
const throughProxy = () =>
  sdkClient(bridge, {
    target: proxy.target,
    retry: { initialDelayMs: 10, maxDelayMs: 200 },
    keepalive: { timeMs: 1_000, timeoutMs: 1_000 },
  });

/** `n` distinct integers in [from, to], sorted. */
function pick(rand: () => number, n: number, from: number, to: number): number[] {
  const out = new Set<number>();
  while (out.size < n) out.add(from + Math.floor(rand() * (to - from + 1)));
  return [...out].sort((a, b) => a - b);
}

const lastSeqOf = async (c: BridgeClient, id: string) => (await c.getSession(id)).lastSeq;

describe('an event stream through 50 connection cuts', () => {
  it.each([{ batch: true }, { batch: false }])(
    'delivers 1..N exactly once and in order, in replay and in live tail (batch: $batch)',
    {
      timeout: 60_000,
    },
    async ({ batch }) => {
      const seed = testSeed();
      const rand = seededRandom(seed);
      const direct = sdkClient(bridge); // drives the session, never cut
      const consumer = throughProxy();
      const { sessionId } = await direct.startSession({
        provider: 'lines',
        repoPath: bridge.daemon.repo,
      });
      // SESSION_STARTED, "ready", then the lines: all stored before reading.
      await waitFor(
        'the lines to be stored',
        async () => (await lastSeqOf(direct, sessionId)) >= LINES + 2,
      );
      const replayEnd = await lastSeqOf(direct, sessionId);
      // Live: each echo, once processed, sends the next input, so the stream
      // is at the live edge whenever a cut falls there.
      const liveEnd = replayEnd + 2 * INPUTS;
      const plan = [
        ...pick(rand, 25, 1, replayEnd - 1),
        ...pick(rand, 25, replayEnd + 1, liveEnd - 1),
      ];
      const delivered: number[] = [];
      const cutAt: number[] = [];
      let sent = 0;
      const stream = consumer.events(sessionId, { subscriberId: `cuts-${batch}`, batch });
      for await (const e of stream) {
        delivered.push(e.seq);
        // A cut is due once the loop has processed its count of events; it
        // falls on the first event after that while a connection is open.
        if (
          cutAt.length < plan.length &&
          delivered.length >= plan[cutAt.length]! &&
          proxy.open > 0
        ) {
          proxy.cutAll();
          cutAt.push(e.seq);
        }
        if (e.seq === replayEnd || (e.type === 'STDOUT' && e.text === `echo: in ${sent}`)) {
          if (sent < INPUTS) await direct.sendInput(sessionId, `in ${++sent}`);
          else await direct.stopSession(sessionId);
        }
      }
      const context = `seed ${seed}, cuts at ${cutAt.join(' ')}`;
      const last = await lastSeqOf(direct, sessionId);
      expect(delivered, context).toEqual(range(1, last));
      expect(last, context).toBeGreaterThan(liveEnd);
      expect(cutAt, context).toHaveLength(50);
      // Half the cuts are planned in each phase; a planned cut waits for an
      // open connection and, in batch mode, for the next batch, so on a busy
      // host some drift from the replay into the live tail.
      expect(cutAt.filter((s) => s < replayEnd).length, context).toBeGreaterThanOrEqual(10);
      expect(cutAt.filter((s) => s > replayEnd).length, context).toBeGreaterThanOrEqual(10);
      expect(proxy.accepted, context).toBeGreaterThan(50);
      expect(stream.processedSeq).toBe(last);
      // What the loop processed is what the daemon holds as acknowledged.
      expect(await direct.ackEvents(sessionId, `cuts-${batch}`, 0)).toBe(last);
    },
  );
});

describe('reconnects that succeed', () => {
  // The reconnect budget (timeouts.reconnectMs) covers failing reconnects only: a session
  // with nothing new to say sends no message, yet each reconnect that reaches the daemon counts.
  it('keep an idle stream alive however often its connection breaks', {
    timeout: 30_000,
  }, async () => {
    const RECONNECT_MS = 1_000;
    const direct = sdkClient(bridge);
    const consumer = sdkClient(bridge, {
      target: proxy.target,
      retry: { initialDelayMs: 10, maxDelayMs: 50 },
      timeouts: { reconnectMs: RECONNECT_MS },
    });
    const { sessionId } = await direct.startSession({
      provider: 'echo',
      repoPath: bridge.daemon.repo,
    });
    const stream = consumer.events(sessionId);
    const got: SessionEvent[] = [];
    let ended = false;
    let failure: unknown;
    const reading = (async () => {
      for await (const e of stream) got.push(e);
    })()
      .catch((err: unknown) => {
        failure = err;
      })
      .finally(() => {
        ended = true;
      });
    const readers = async () => (await direct.getSession(sessionId)).subscriberCount;
    await waitFor('the stream to catch up', () => got.length >= 2);
    // Break the connection whenever the stream is back, for three times the budget.
    const began = Date.now();
    let cycles = 0;
    while (!ended && Date.now() - began < 3 * RECONNECT_MS) {
      // One reader: the new stream is open and the daemon has let the cut one go.
      await waitFor('the stream to be back', async () => ended || (await readers()) === 1);
      const accepted = proxy.accepted;
      proxy.cutAll();
      cycles++;
      // The SDK comes back through a new connection; it can be quick enough
      // that no poll ever sees the daemon without a reader, so wait for that
      // connection instead.
      await waitFor('the stream to reconnect', () => ended || proxy.accepted > accepted);
    }
    await direct.sendInput(sessionId, 'still there?');
    await waitFor('the echo', () => ended || got.some((e) => e.text === 'echo: still there?'));
    await direct.stopSession(sessionId);
    await within('the stream to end', reading, 10_000);
    expect(failure).toBeUndefined();
    expect(got.at(-1)?.type).toBe('SESSION_STOPPED');
    expect(cycles).toBeGreaterThan(3);
  });
});

describe('a loop body that throws', () => {
  it.each([{ batch: true }, { batch: false }])(
    'ends the iteration unacknowledged; the next stream of the subscriber starts with that event (batch: $batch)',
    async ({ batch }) => {
      const c = sdkClient(bridge);
      const { sessionId } = await c.startSession({
        provider: 'echo',
        repoPath: bridge.daemon.repo,
      });
      for (let i = 1; i <= 3; i++) await c.sendInput(sessionId, `in ${i}`);
      await waitFor('the echo of "in 3"', async () => (await lastSeqOf(c, sessionId)) >= 8);
      const failAt = 5;
      const boom = new Error('the consumer failed on this event');
      const got: number[] = [];
      // ackEvery 1: every event the body finished is acknowledged at once,
      // so an ack sent before the body returned would cover `failAt` too.
      const first = c.events(sessionId, { subscriberId: 'thrower', ackEvery: 1, batch });
      const failed = (async () => {
        for await (const e of first) {
          got.push(e.seq);
          if (e.seq === failAt) throw boom;
        }
      })();
      await expect(failed).rejects.toBe(boom);
      expect(got).toEqual(range(1, failAt));
      expect(first.processedSeq).toBe(failAt - 1);
      // The daemon's cursor and the client's both stop before the failed event.
      expect(await c.ackEvents(sessionId, 'thrower', 0)).toBe(failAt - 1);
      const again: SessionEvent[] = [];
      for await (const e of c.events(sessionId, { subscriberId: 'thrower', batch })) {
        again.push(e);
        if (e.seq === failAt + 1) break;
      }
      expect(seqsOf(again)).toEqual([failAt, failAt + 1]);
      // Another client (no cursor of its own) resumes from the daemon's cursor: the same event.
      const other = sdkClient(bridge);
      for await (const e of other.events(sessionId, { subscriberId: 'thrower', batch })) {
        expect(e.seq).toBe(failAt + 1); // the break above acknowledged failAt
        break;
      }
      await c.stopSession(sessionId, { force: true });
    },
  );
});

describe('a SendInput whose answer is lost', () => {
  it('is retried with its idempotency key: one INPUT_RECEIVED, and the answer is the first seq', async () => {
    const direct = sdkClient(bridge);
    const viaProxy = throughProxy();
    const { sessionId } = await direct.startSession({
      provider: 'echo',
      repoPath: bridge.daemon.repo,
    });
    await viaProxy.health(); // the connection the request will travel on is up
    const before = await lastSeqOf(direct, sessionId);
    // From now on the daemon's answers on that connection are dropped.
    proxy.dropAnswers();
    const sending = viaProxy.sendInput(sessionId, 'exactly once');
    // The request reached the daemon, which wrote the input (and the agent echoed it)...
    await waitFor(
      'the daemon to write the input',
      async () => (await lastSeqOf(direct, sessionId)) > before,
    );
    const connections = proxy.accepted;
    // ...and its answer is lost with the connection.
    expect(proxy.cutAll()).toBe(1);
    const sent = await within('the retried SendInput', sending, 20_000);
    expect(proxy.accepted).toBeGreaterThan(connections); // it came back over a new connection
    // A later input shows that nothing else was written meanwhile.
    await direct.sendInput(sessionId, 'later');
    const events: SessionEvent[] = [];
    for await (const e of direct.events(sessionId, { afterSeq: 0 })) {
      events.push(e);
      if (e.text === 'echo: later') break;
    }
    const inputs = events.filter((e) => e.type === 'INPUT_RECEIVED');
    expect(inputs.map((e) => e.text)).toEqual(['exactly once', 'later']);
    expect(sent.seq).toBe(inputs[0]!.seq);
    expect(sent.seq).toBe(before + 1);
    expect(events.filter((e) => e.text === 'echo: exactly once')).toHaveLength(1);
    await direct.stopSession(sessionId, { force: true });
  });
});

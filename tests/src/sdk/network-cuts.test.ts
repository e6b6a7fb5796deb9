/**
 * The SDK on a network that cuts connections at random moments: every
 * connection through the proxy is cut within half a second of its accept,
 * half of them within the first 150 ms (in the TLS handshake or before
 * HTTP/2's settings exchange, where grpc-js can leave a channel CONNECTING
 * for good). Six readers (three batched, three one event a message) read
 * one session while it produces 20,000 lines and go on through at least
 * 500 cuts: each hands its loop every event exactly once and in order, none
 * gets stuck, and at the end the daemon's cursor of each is its last seq.
 */
import type { BridgeClient } from '@agent-bridge/bridgeclient';
import {
  type CutPlan,
  seededRandom,
  startTcpProxy,
  type TcpProxy,
  testSeed,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';
import { closeClients, range, sdkClient } from './helpers.js';

const LINES = 20_000;
const READERS = 6;
const MIN_CUTS = 500;
/** Cuts within this many ms of a connection's accept count as cuts in its handshakes. */
const EARLY_MS = 150;

const bridge = useDaemon({
  config: { sessions: { event_buffer_size: 40_000, event_buffer_bytes: '64MiB' } },
  // 20,000 lines, 10 every 10 ms: some 20 s of live tail, then idle until stopped.
  fakeProviders: { steady: ['steady', String(LINES), '10'] },
});

let proxy: TcpProxy | undefined;
afterAll(async () => {
  closeClients();
  await proxy?.close();
});

/** A client that reaches the daemon only through the proxy; quick retries and connect bound. */
const throughProxy = (p: TcpProxy): BridgeClient =>
  sdkClient(bridge, {
    target: p.target,
    retry: { initialDelayMs: 10, maxDelayMs: 200 },
    keepalive: { timeMs: 1000, timeoutMs: 1000 },
    timeouts: { connectMs: 1000, reconnectMs: 120_000, callMs: 60_000 },
  });

describe(`${READERS} readers through at least ${MIN_CUTS} random connection cuts`, () => {
  it('every event exactly once and in order, no reader stuck, the daemon cursor at the end', {
    timeout: 300_000,
  }, async () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const p = await startTcpProxy(bridge.daemon.port);
    proxy = p;
    const direct = sdkClient(bridge); // drives the session, never cut
    const { sessionId } = await direct.startSession({
      provider: 'steady',
      repoPath: bridge.daemon.repo,
    });
    // Half the connections cut at a random moment of their first half
    // second; the other half in the handshakes: at a random moment of the
    // first 150 ms, or right after the server's TLS flight (reset, closed,
    // or gone silent: the last is what left grpc-js CONNECTING for good).
    const plans: (() => CutPlan)[] = [
      () => ({ afterMs: EARLY_MS + rand() * 350 }),
      () => ({ afterMs: EARLY_MS + rand() * 350 }),
      () => ({ afterMs: rand() * EARLY_MS }),
      () => {
        const r = rand();
        return { serverChunks: 1, end: r < 0.5 ? 'cut' : r < 0.75 ? 'close' : 'stall' };
      },
    ];
    p.cutEach(() => plans[Math.floor(rand() * plans.length)]!(), EARLY_MS);

    const readers = Array.from({ length: READERS }, (_, i) => {
      const client = throughProxy(p);
      const subscriberId = `reader-${i}`;
      const batch = i % 2 === 0;
      const seqs: number[] = [];
      const done = (async () => {
        for await (const e of client.events(sessionId, { subscriberId, batch })) {
          seqs.push(e.seq);
        }
      })();
      return { client, subscriberId, batch, seqs, done };
    });

    // The session produces all its lines (after SESSION_STARTED and "ready",
    // then "done"), and the cuts go on until there are enough.
    let produced = 0;
    await waitFor(
      () =>
        `the session to print its lines (${produced} events) and ${MIN_CUTS} cuts (seed ${seed}: ${p.cuts} so far)`,
      async () => {
        produced = (await direct.getSession(sessionId)).lastSeq;
        return produced >= LINES + 3 && p.cuts >= MIN_CUTS;
      },
      240_000,
      200,
    );
    // A quiet network again: the readers catch up, the session ends, they finish.
    p.cutEach(undefined);
    await direct.stopSession(sessionId);
    const lastSeq = (await direct.getSession(sessionId)).lastSeq;
    for (const r of readers) {
      await within(
        () =>
          `reader ${r.subscriberId} (batch ${r.batch}) to finish (seed ${seed}, ${r.seqs.length} events read)`,
        r.done,
        120_000,
      );
      expect(r.seqs, `seed ${seed}: reader ${r.subscriberId}, batch ${r.batch}`).toEqual(
        range(1, lastSeq),
      );
      // Its acknowledgements reached the daemon: the cursor is at the end.
      expect(await direct.ackEvents(sessionId, r.subscriberId, 0)).toBe(lastSeq);
      // And its client still answers.
      await within(`${r.subscriberId}'s client to answer`, r.client.health(), 30_000);
    }
    expect(p.cuts).toBeGreaterThanOrEqual(MIN_CUTS);
    // Enough cuts fell in the handshakes to have caught a stuck channel before the fix.
    expect(p.earlyCuts, `seed ${seed}`).toBeGreaterThanOrEqual(MIN_CUTS / 4);
  });
});

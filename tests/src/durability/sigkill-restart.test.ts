/**
 * The daemon SIGKILLed mid-flood, then started again on its store, 20
 * times at random moments (a seeded draw: BRIDGE_TEST_SEED replays a run).
 * An agent writes 100,000 lines; two readers read them with their own
 * subscriber ids and acknowledge every few hundred. After the restart:
 *
 * - every event a reader saw is in the store, under the same seq, with
 *   the same content: no seq was reused;
 * - the session's events are 1..N with no gap, the last one the
 *   SESSION_FAILED (daemon_restarted) the restart recorded;
 * - each reader's cursor is its last answered ack (or an ack it sent whose
 *   answer the kill cut off: the daemon commits before it answers), and a
 *   stream resuming from it reads on to the end with no gap.
 */
import { rmSync } from 'node:fs';
import {
  type Bridge,
  collect,
  seededRandom,
  startBridge,
  testSeed,
  waitFor,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { afterEach, describe, expect, it } from 'vitest';

const ROUNDS = Number(process.env.BRIDGE_DURABILITY_ROUNDS ?? 20);
const LINES = 100_000;
const ACK_EVERY = 300;

const seed = testSeed();
const random = seededRandom(seed);

const options = (dir?: string) => ({
  ...(dir ? { dir } : {}),
  fakeProviders: { lines: ['lines', String(LINES)] },
  // Every event of the session stays in the ring: a reader from seq 0
  // after the restart sees them all, none replaced by BUFFER_OVERFLOW.
  config: { sessions: { event_buffer_size: 4 * LINES, event_buffer_bytes: '64MiB' } },
});

const bridges: Bridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) {
    b.client.close();
    if (b.daemon.proc.exitCode === null && b.daemon.proc.signalCode === null) await b.daemon.stop();
    rmSync(b.daemon.dir, { recursive: true, force: true });
  }
});

/** A reader with its own subscriber id, acknowledging as it goes, until its stream breaks. */
function reader(b: Bridge, sessionId: string, subscriberId: string, historyId: string) {
  const seen: SessionEvent[] = [];
  let ackSent = 0;
  let ackAnswered = 0;
  const stream = b.stream({ sessionId, subscriberId });
  stream.on('data', (e: SessionEvent) => {
    seen.push(e);
    const seq = Number(e.seq);
    if (seq % ACK_EVERY !== 0) return;
    ackSent = seq;
    b.call((c) => c.ackEvents, { sessionId, subscriberId, ackSeq: e.seq, historyId }).then(
      (r) => {
        ackAnswered = Math.max(ackAnswered, Number(r.ackSeq));
      },
      () => undefined, // the daemon was killed under it
    );
  });
  stream.on('error', () => undefined);
  return {
    seen,
    acks: () => ({ sent: ackSent, answered: ackAnswered }),
  };
}

describe('SIGKILL mid-flood, then a restart on the same store', () => {
  it(`loses nothing a reader saw, reuses no seq, keeps the cursors (${ROUNDS} rounds, seed ${seed})`, {
    timeout: ROUNDS * 30_000,
  }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const before = await startBridge(options());
      bridges.push(before);
      const { historyId } = await before.call((c) => c.health, {});
      const s = await before.sessions().start('lines');
      const readers = ['cp-a', 'cp-b'].map((id) => reader(before, s.sessionId, id, historyId));
      // A random moment of the flood, as reader A sees it.
      const killAt = 500 + Math.floor(random() * (LINES - 1000));
      await waitFor(
        `round ${round}: reader A at seq ${killAt}`,
        () => (readers[0]?.seen.length ?? 0) >= killAt,
        60_000,
      );
      before.daemon.proc.kill('SIGKILL');
      await before.daemon.exited;
      const acks = readers.map((r) => r.acks());

      const after = await startBridge({ ...options(before.daemon.dir), pki: before.pki });
      bridges.push(after);
      expect((await after.call((c) => c.health, {})).historyId).toBe(historyId);
      const all = await collect(after.stream({ sessionId: s.sessionId, afterSeq: 0n }));
      expect(all.error).toBeUndefined();
      const seqs = all.events.map((e) => Number(e.seq));
      expect(seqs, `round ${round}: seqs 1..N`).toEqual(seqs.map((_, i) => i + 1));
      expect(all.events.at(-1)).toMatchObject({
        type: EventType.EVENT_TYPE_SESSION_FAILED,
        data: { reason: 'daemon_restarted' },
      });
      for (const [i, r] of readers.entries()) {
        const last = r.seen.at(-1);
        expect(last, `round ${round}: reader ${i} saw events`).toBeDefined();
        // Every event it saw, as it saw it, at its seq.
        expect(all.events.slice(0, r.seen.length), `round ${round}: reader ${i}`).toEqual(r.seen);
        // Its cursor: the last answered ack, or a later one the kill left unanswered.
        const resumed = await collect(
          after.stream({ sessionId: s.sessionId, subscriberId: i === 0 ? 'cp-a' : 'cp-b' }),
        );
        const first = Number(resumed.events[0]?.seq ?? 0);
        const cursor = first - 1;
        const { sent, answered } = acks[i]!;
        expect(cursor, `round ${round}: reader ${i}'s cursor`).toBeGreaterThanOrEqual(answered);
        expect(cursor, `round ${round}: reader ${i}'s cursor`).toBeLessThanOrEqual(sent);
        expect(resumed.events).toEqual(all.events.slice(cursor));
      }
      for (const b of bridges.splice(0)) {
        b.client.close();
        if (b.daemon.proc.exitCode === null) await b.daemon.stop();
      }
    }
  });
});

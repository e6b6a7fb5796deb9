/**
 * F11: a subscriber is cut (its stream cancelled) 200 times at random
 * points while an agent produces steadily, and resumes each time, from
 * after_seq = the last seq it received or from its acknowledged cursor.
 * Every seq arrives, and the only duplicates are the unacknowledged tail a
 * cursor resume sends again. after_seq below the oldest retained event
 * gets the exact gap first; after_seq beyond the last seq is OUT_OF_RANGE.
 *
 * sdk/delivery.test.ts cuts the connection under the SDK (50 cuts through
 * a proxy, the SDK resuming by itself); here the raw client cancels the
 * call and resumes by hand. e2e/streams.test.ts checks a resume from
 * after_seq 0 and from a cursor behind the oldest event, and the status
 * code of after_seq beyond the last.
 */

import {
  collect,
  seededRandom,
  status,
  testSeed,
  useDaemon,
  waitFor,
  watchEvents,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const CUTS = 200;
/** Most events a subscriber reads before its stream is cut. */
const MOST_PER_CUT = 40;
const SUBSCRIBER = 'f11-cursor';

// Prints "ready", then "line <n>", ten lines every 10 ms (about 1,000 a
// second), until an input line arrives; then says where it stopped and
// idles. The cuts all fall while it produces, however long they take.
const steady = `
process.stdout.write('ready\\n');
let n = 0;
const timer = setInterval(() => {
  let chunk = '';
  for (let i = 0; i < 10; i++) chunk += 'line ' + ++n + '\\n';
  process.stdout.write(chunk);
}, 10);
process.stdin.once('data', () => {
  clearInterval(timer);
  process.stdout.write('stopped after line ' + n + '\\n');
});
`;

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const seqs = (events: SessionEvent[]) => events.map((e) => Number(e.seq));

describe('F11 200 cuts of a subscriber while the agent produces', () => {
  const bridge = useDaemon({
    config: {
      // Far more than the test produces (some 1,000 events a second for
      // seconds): nothing is evicted, so every seq must arrive.
      sessions: { event_buffer_size: 200_000, event_buffer_bytes: '128MiB' },
      providers: {
        steady: { binary: process.execPath, args: ['-e', steady], ready_pattern: '^ready$' },
      },
    },
  });

  it('F11 the union of what arrived is 1..N; duplicates only from the unacked tail', {
    timeout: 60_000,
  }, async () => {
    const seed = testSeed();
    console.log(`F11 seed ${seed} (BRIDGE_TEST_SEED=${seed} replays it)`);
    const rand = seededRandom(seed);
    const { sessionId } = await bridge.sessions().start('steady');

    // Each cut resumes one of two ways, half of them each, in a seeded order.
    const modes = Array.from({ length: CUTS }, (_, i): 'cursor' | 'after_seq' =>
      i < CUTS / 2 ? 'cursor' : 'after_seq',
    );
    for (let i = modes.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [modes[i], modes[j]] = [modes[j]!, modes[i]!];
    }

    interface Segment {
      /** How this segment's stream was opened. */
      resumedBy: 'start' | 'cursor' | 'after_seq';
      /** The first seq it had to start with. */
      due: number;
      /** The cursor when the stream before it was cut. */
      ackedAtCut: number;
      /**
       * The highest seq received before the latest cursor resume: what lies
       * between the cursor and it (the unacked tail) may come again.
       */
      tailEnd: number;
      seqs: number[];
    }
    const segments: Segment[] = [];
    let acked = 0;
    let tailEnd = 0;
    let highest = 0;
    let next: Segment = { resumedBy: 'start', due: 1, ackedAtCut: 0, tailEnd, seqs: [] };
    let request: { afterSeq?: bigint; subscriberId: string } = { afterSeq: 0n, subscriberId: '' };
    for (const mode of modes) {
      const k = 1 + Math.floor(rand() * MOST_PER_CUT);
      const stream = bridge.stream({ sessionId, ...request });
      const reader = watchEvents(stream);
      try {
        if (mode === 'cursor') {
          // The subscriber acknowledges what it processed while the stream is
          // open, then reads on: what follows the ack is the unacked tail.
          const j = 1 + Math.floor(rand() * k);
          const upTo = await reader.until(`${j} events`, (all) => all.length >= j);
          const target = Number(upTo[j - 1]!.seq);
          const ack = await bridge.call((c) => c.ackEvents, {
            sessionId,
            subscriberId: SUBSCRIBER,
            ackSeq: BigInt(target),
            historyId: '',
          });
          expect(Number(ack.ackSeq), `seed ${seed}: the cursor after acking ${target}`).toBe(
            target,
          );
          acked = target;
        }
        const got = await reader.until(`${k} events`, (all) => all.length >= k);
        next.seqs = seqs(got.slice(0, k));
      } finally {
        reader.cancel();
      }
      segments.push(next);
      const last = next.seqs.at(-1)!;
      highest = Math.max(highest, last);
      if (mode === 'cursor') {
        tailEnd = highest;
        request = { subscriberId: SUBSCRIBER };
        next = { resumedBy: 'cursor', due: acked + 1, ackedAtCut: acked, tailEnd, seqs: [] };
      } else {
        request = { afterSeq: BigInt(last), subscriberId: '' };
        next = { resumedBy: 'after_seq', due: last + 1, ackedAtCut: acked, tailEnd, seqs: [] };
      }
    }
    // After the cuts, the agent stops producing, and one more stream reads
    // to its last word.
    await bridge.call((c) => c.sendInput, { sessionId, text: 'stop', idempotencyKey: '' });
    const rest = await collect(
      bridge.stream({ sessionId, ...request }),
      (e) => e.text.startsWith('stopped after line '),
      { what: 'the agent to say it stopped', timeoutMs: 30_000 },
    );
    next.seqs = seqs(rest.events);
    segments.push(next);
    const n = next.seqs.at(-1)!;
    const session = await bridge.call((c) => c.getSession, { sessionId });
    await bridge.call((c) => c.stopSession, { sessionId, force: true });

    const context = `seed ${seed}`;
    // Nothing was evicted and nothing came after the last line.
    expect(Number(session.oldestSeq), context).toBe(1);
    expect(Number(session.lastSeq), context).toBe(n);
    const wrong: string[] = [];
    const seen = new Set<number>();
    let duplicates = 0;
    for (const [i, s] of segments.entries()) {
      // Each stream starts where its resume said and skips nothing.
      if (s.seqs[0] !== s.due || s.seqs.some((q, at) => q !== s.due + at)) {
        wrong.push(`segment ${i} (${s.resumedBy}, due ${s.due}): ${s.seqs.join(' ')}`);
      }
      for (const q of s.seqs) {
        if (!seen.has(q)) {
          seen.add(q);
          continue;
        }
        duplicates++;
        // A seq comes again only from the unacked tail of a cursor resume:
        // after the cursor at the cut, up to what had been received then.
        if (q <= s.ackedAtCut || q > s.tailEnd) {
          wrong.push(
            `seq ${q} again in segment ${i} (${s.resumedBy}; cursor ${s.ackedAtCut} at the cut, unacked tail up to ${s.tailEnd})`,
          );
        }
      }
    }
    expect(wrong, context).toEqual([]);
    expect(
      [...seen].sort((a, b) => a - b),
      context,
    ).toEqual(range(1, n));
    expect(segments, context).toHaveLength(CUTS + 1);
    // The cursor resumes did send an unacked tail again (each acked a random
    // event of up to 40 read, so most left a tail).
    expect(duplicates, context).toBeGreaterThan(0);
  });
});

describe('F11 after_seq below the oldest retained event', () => {
  const RING = 50;
  const bridge = useDaemon({
    config: { sessions: { event_buffer_size: RING } },
    fakeProviders: { lines: ['lines', '200'] },
  });
  /** A session whose 200 lines (seq 3..202) are stored, the first evicted. */
  const linesStored = async () => {
    const { sessionId } = await bridge.sessions().start('lines');
    await waitFor(
      'the 200 lines to be stored',
      async () => Number((await bridge.call((c) => c.getSession, { sessionId })).lastSeq) >= 202,
    );
    return sessionId;
  };

  it('F11 gets BUFFER_OVERFLOW first, with the exact gap, then the ring from its oldest event', async () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const sessionId = await linesStored();
    const s = await bridge.call((c) => c.getSession, { sessionId });
    const oldest = Number(s.oldestSeq);
    expect(oldest).toBeGreaterThan(2);
    // Somewhere inside what was evicted (after_seq 0 is e2e/streams.test.ts's case).
    const after = 1 + Math.floor(rand() * (oldest - 2));
    const r = await collect(
      bridge.stream({ sessionId, afterSeq: BigInt(after) }),
      (_e, all) => all.length === RING + 1,
      { what: `the overflow and the ${RING} retained events` },
    );
    const [overflow, ...retained] = r.events;
    const context = `seed ${seed}, after_seq ${after}, oldest ${oldest}`;
    expect(overflow?.type, context).toBe(EventType.EVENT_TYPE_BUFFER_OVERFLOW);
    expect(overflow?.data, context).toEqual({ first_missing: after + 1, last_missing: oldest - 1 });
    expect(Number(overflow?.seq), context).toBe(oldest - 1);
    expect(seqs(retained), context).toEqual(range(oldest, oldest + RING - 1));
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });

  it('F11 after_seq beyond the last seq is OUT_OF_RANGE, saying so', async () => {
    const sessionId = await linesStored();
    const { lastSeq } = await bridge.call((c) => c.getSession, { sessionId });
    const r = await collect(bridge.stream({ sessionId, afterSeq: lastSeq + 1n }));
    expect(r.events).toEqual([]);
    expect(r.error?.code).toBe(status.OUT_OF_RANGE);
    expect(r.error?.details).toBe(`after_seq ${lastSeq + 1n} is beyond the last seq ${lastSeq}`);
    // The largest uint64 is refused the same way.
    const max = await collect(bridge.stream({ sessionId, afterSeq: 2n ** 64n - 1n }));
    expect(max.events).toEqual([]);
    expect(max.error?.code).toBe(status.OUT_OF_RANGE);
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });

  it('F11 the OUT_OF_RANGE message for the largest uint64 quotes the after_seq sent', async () => {
    const sessionId = await linesStored();
    const { lastSeq } = await bridge.call((c) => c.getSession, { sessionId });
    const max = 2n ** 64n - 1n;
    const r = await collect(bridge.stream({ sessionId, afterSeq: max }));
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
    expect(r.error?.details).toBe(`after_seq ${max} is beyond the last seq ${lastSeq}`);
  });

  it('F11 an ack_seq beyond 2^53 is OUT_OF_RANGE quoting the value sent, and moves no cursor', async () => {
    const sessionId = await linesStored();
    const { lastSeq } = await bridge.call((c) => c.getSession, { sessionId });
    const ack = (ackSeq: bigint) =>
      bridge.call((c) => c.ackEvents, {
        sessionId,
        subscriberId: 'f11-ack',
        ackSeq,
        historyId: '',
      });
    expect((await ack(3n)).ackSeq).toBe(3n);
    const huge = 2n ** 60n;
    const err = await ack(huge).then(
      () => undefined,
      (e: { code: number; details: string }) => e,
    );
    expect(err?.code).toBe(status.OUT_OF_RANGE);
    expect(err?.details).toBe(`ack_seq ${huge} is beyond the last seq ${lastSeq}`);
    expect((await ack(3n)).ackSeq).toBe(3n);
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });
});

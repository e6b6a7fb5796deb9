/**
 * F5: an agent floods its output for ten seconds. The daemon's RSS levels
 * off, the ring never holds more than its configured count, unary calls
 * keep being answered, and a subscriber that read a little, then paused
 * for seconds, learns each gap exactly (BUFFER_OVERFLOW) in a stream whose
 * seqs only increase.
 *
 * D6 in e2e/streams.test.ts covers a reader that never reads before the
 * flood has passed 200,000 events (ring of 50, one RSS delta); here the
 * reader has read first, the ring has a production-like size, and RSS and
 * the ring are sampled through the whole flood.
 */

import { rssKiB, showEvents, useDaemon, watchEvents } from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const RING = 2_000;
const FLOOD_SECONDS = 10;
/** Events the subscriber reads before it pauses. */
const READ_FIRST = 20;

const bridge = useDaemon({
  config: { sessions: { event_buffer_size: RING } },
  fakeProviders: { flood: ['flood', '180'] },
});

interface Sample {
  second: number;
  rssKiB: number;
  lastSeq: number;
  oldestSeq: number;
}

const isOverflow = (e: SessionEvent) => e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW;

/**
 * What is wrong with a stream read from seq 1: every seq must be the one
 * due, or be a BUFFER_OVERFLOW whose range starts at the seq due and ends
 * at its own seq, the event after it following that range at once.
 */
function gapsAndOrder(events: SessionEvent[]): string[] {
  const wrong: string[] = [];
  let due = 1;
  let previous = 0;
  for (const e of events) {
    const seq = Number(e.seq);
    if (seq <= previous) wrong.push(`seq ${seq} after ${previous}: not strictly increasing`);
    if (isOverflow(e)) {
      const { first_missing, last_missing } = e.data as {
        first_missing: number;
        last_missing: number;
      };
      if (first_missing !== due || last_missing !== seq || last_missing < first_missing) {
        wrong.push(`overflow ${seq} ${JSON.stringify(e.data)} where seq ${due} was due`);
      }
    } else if (seq !== due) {
      wrong.push(`seq ${seq} where ${due} was due`);
    }
    due = seq + 1;
    previous = seq;
  }
  return wrong;
}

describe('F5 an agent flooding its output', () => {
  it('F5 RSS levels off, the ring stays within its count, calls are answered, a paused reader learns the exact gaps', {
    timeout: 90_000,
  }, async () => {
    const { daemon } = bridge;
    const s = await bridge.sessions().start('flood');
    const stream = bridge.stream({ sessionId: s.sessionId, afterSeq: 0n });
    const reader = watchEvents(stream);
    await reader.until(`the first ${READ_FIRST} events`, (all) => all.length >= READ_FIRST);
    stream.pause();
    const readBeforePause = reader.events.length;

    const samples: Sample[] = [];
    let answered = 0;
    for (let second = 1; second <= FLOOD_SECONDS; second++) {
      // The samples are a time series: one a second is the measurement's
      // cadence (the catalogue's), not a wait for some state.
      await new Promise((r) => setTimeout(r, 1000));
      const rss = rssKiB(daemon.pid);
      const got = await s.get();
      expect((await bridge.call((c) => c.health, {})).status).toBe('serving');
      answered += 2;
      samples.push({
        second,
        rssKiB: rss,
        lastSeq: Number(got.lastSeq),
        oldestSeq: Number(got.oldestSeq),
      });
    }
    const context = samples.map((x) => JSON.stringify(x)).join('\n');
    expect(answered).toBe(2 * FLOOD_SECONDS);
    // The flood went far past the ring, so the ring was full at each sample.
    expect(samples[0]!.lastSeq, context).toBeGreaterThan(RING);
    expect(samples.at(-1)!.lastSeq, context).toBeGreaterThan(10 * RING);
    for (const x of samples) {
      expect(x.lastSeq - x.oldestSeq + 1, context).toBeLessThanOrEqual(RING);
    }
    // A leak or a queue for the paused reader grows with the events that go
    // by, which the second half adds as many of as the first. RSS also moves
    // with when the collector runs and what the allocator keeps for reuse,
    // by tens of MiB under this allocation rate, hence 25% and not less.
    const maxOf = (xs: Sample[]) => Math.max(...xs.map((x) => x.rssKiB));
    const half = FLOOD_SECONDS / 2;
    expect(maxOf(samples.slice(half)), context).toBeLessThanOrEqual(
      maxOf(samples.slice(0, half)) * 1.25,
    );

    // The reader reads again while the flood goes on: it must get past the
    // gap of its pause (the one reaching past what was evicted while it was
    // paused) and read a ring's worth of events after it, falling behind
    // again meanwhile as it may.
    const oldestAtResume = samples.at(-1)!.oldestSeq;
    const isPauseGap = (e: SessionEvent) => isOverflow(e) && Number(e.seq) >= oldestAtResume - 1;
    stream.resume();
    const received = await reader.until(
      `the gap of the pause (up to seq ${oldestAtResume - 1} at least), then ${RING} delivered events`,
      (all) => {
        const at = all.findIndex(isPauseGap);
        return at >= 0 && all.slice(at + 1).filter((e) => !isOverflow(e)).length >= RING;
      },
    );
    reader.cancel();
    await s.stop(true);

    expect(gapsAndOrder(received), showEvents(received.slice(0, 50))).toEqual([]);
    // The gap of the pause comes after everything read before the pause,
    // and the walk above checked it starts right after the event before it.
    const pauseGap = received.findIndex(isPauseGap);
    expect(pauseGap, `no BUFFER_OVERFLOW reaching seq ${oldestAtResume - 1}`).toBeGreaterThan(0);
    expect(pauseGap).toBeGreaterThanOrEqual(readBeforePause);
    expect(Number(received[pauseGap + 1]?.seq)).toBe(Number(received[pauseGap]!.seq) + 1);
  });
});

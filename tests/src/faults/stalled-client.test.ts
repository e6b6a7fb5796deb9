/**
 * A client that stops reading mid-stream, without cancelling, costs the
 * daemon no memory: the same flood leaves the daemon's live memory where a
 * flood with no reader at all leaves it. When the client reads again it is
 * told exactly what it missed (BUFFER_OVERFLOW), then gets the rest in
 * order.
 *
 * Why this must hold: a reader is a position in the ring, not a queue of
 * its own, and the server stops writing to a stream when grpc-js's write()
 * returns false until 'drain'. e2e/streams.test.ts (D6) checks the event
 * side for a reader paused from its first event, with an RSS delta; here
 * the reader has read first, and the measure is what survives a full
 * collection, compared with a flood nobody reads.
 */

import {
  heapSnapshotFlags,
  type LiveMemory,
  liveMemoryBytes,
  showEvents,
  useDaemon,
  waitFor,
  watchEvents,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const RING = 2_000;
/** Events each flood writes: a queue of them (some 200 bytes each) would be tens of MiB. */
const FLOOD = 300_000;
/** Events the stalled client reads before it stops reading. */
const READ_FIRST = 5;
const MiB = 1024 * 1024;

const bridge = useDaemon((scratch) => ({
  env: { NODE_OPTIONS: heapSnapshotFlags(scratch).join(' ') },
  config: { metrics: { listen: '127.0.0.1:0' }, sessions: { event_buffer_size: RING } },
  fakeProviders: { flood: ['flood', '180'] },
}));

/** Runs a flood of FLOOD events on a fresh session, or on `started`'s, then stops it; resolves with its final state. */
async function flood(started?: Awaited<ReturnType<typeof startFlood>>) {
  const s = started ?? (await startFlood());
  await waitFor(
    `session ${s.sessionId} to pass seq ${FLOOD}`,
    async () => Number((await s.get()).lastSeq) >= FLOOD,
    60_000,
    100,
  );
  await s.stop(true);
  await waitFor(`session ${s.sessionId} to stop`, async () => {
    const st = (await s.get()).status;
    return (
      st === SessionStatus.SESSION_STATUS_STOPPED || st === SessionStatus.SESSION_STATUS_FAILED
    );
  });
  return s.get();
}

const startFlood = () => bridge.sessions().start('flood');

const show = (m: LiveMemory) =>
  `${(m.total / MiB).toFixed(2)} MiB (heap ${(m.heap / MiB).toFixed(2)}, external ${(m.external / MiB).toFixed(2)})`;

describe('a client that stops reading mid-stream', () => {
  it('costs the daemon no memory, and learns the exact gap when it reads again', {
    timeout: 180_000,
  }, async () => {
    // Floods bring the daemon to its working size (compiled code, pools,
    // retained sessions), so the two measured floods start alike. The first
    // heap snapshot leaves half a MiB of heap that the next flood's
    // collections free, which would make the growth measured after it an
    // unfairly low reference: one is taken, and a flood runs, before the
    // baseline.
    await flood();
    await liveMemoryBytes(bridge);
    await flood();
    const before = await liveMemoryBytes(bridge);
    await flood();
    const afterUnread = await liveMemoryBytes(bridge);

    const s = await startFlood();
    const stream = bridge.stream({ sessionId: s.sessionId, afterSeq: 0n });
    const reader = watchEvents(stream);
    await reader.until(`the first ${READ_FIRST} events`, (all) => all.length >= READ_FIRST);
    stream.pause();
    const final = await flood(s);
    const afterStalled = await liveMemoryBytes(bridge);

    const unread = afterUnread.total - before.total;
    const stalled = afterStalled.total - afterUnread.total;
    const context = `live memory: ${show(before)}, after a flood nobody read ${show(afterUnread)}, after a flood with a stalled reader ${show(afterStalled)}`;
    // Each flood leaves a stopped session with a full ring. Beyond that, the
    // stalled stream may hold only what was written to it before write()
    // returned false: HTTP/2 flow-control windows and socket buffers, some
    // hundred KiB. 2 MiB covers those and the collector's noise (a flood
    // frees nothing the daemon needed before it, so a negative growth of
    // the unread flood is noise too, and counts as none); a queue of the
    // flood for the reader would be tens of MiB.
    expect(stalled, context).toBeLessThanOrEqual(Math.max(unread, 0) + 2 * MiB);

    // Reading again: what was in flight when it stopped, one gap announced
    // exactly, then the ring as the stopped session left it, to its end.
    stream.resume();
    const { events, error } = await reader.ended();
    expect(error).toBeUndefined();
    const oldest = Number(final.oldestSeq);
    const last = Number(final.lastSeq);
    const isOverflow = (e: SessionEvent) => e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW;
    const gapAt = events.findLastIndex(isOverflow);
    const listing = showEvents([...events.slice(0, 10), ...events.slice(gapAt - 3, gapAt + 3)]);
    expect(gapAt, `no BUFFER_OVERFLOW\n${listing}`).toBeGreaterThanOrEqual(READ_FIRST);
    expect(events[gapAt]!.data, listing).toEqual({
      first_missing: Number(events[gapAt - 1]!.seq) + 1,
      last_missing: oldest - 1,
    });
    expect(Number(events[gapAt]!.seq)).toBe(oldest - 1);
    const after = events.slice(gapAt + 1).map((e) => Number(e.seq));
    expect(after).toEqual(Array.from({ length: last - oldest + 1 }, (_, i) => oldest + i));
    expect(events.at(-1)?.done).toBe(true);
    // Before the gap, every seq is the one due or an earlier gap announced
    // exactly (the flood may outrun the reader before it stops reading).
    const wrong: string[] = [];
    let due = 1;
    for (const e of events.slice(0, gapAt)) {
      const seq = Number(e.seq);
      if (isOverflow(e)) {
        const { first_missing, last_missing } = e.data as Record<string, number>;
        if (first_missing !== due || last_missing !== seq) {
          wrong.push(`overflow ${seq} ${JSON.stringify(e.data)} where ${due} was due`);
        }
      } else if (seq !== due) wrong.push(`seq ${seq} where ${due} was due`);
      due = seq + 1;
    }
    expect(wrong).toEqual([]);
  });
});

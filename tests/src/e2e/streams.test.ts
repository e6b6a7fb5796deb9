import {
  codeOf,
  collect,
  heapSnapshotFlags,
  liveMemoryBytes,
  status,
  useDaemon,
  waitFor,
  watchEvents,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const RING = 50;

// D6 reads what the daemon keeps alive after a full collection
// (liveMemoryBytes), which needs the snapshot flags and the metrics listener.
// On the memory store: what D6 bounds is the ring and the stalled stream.
// The durable store's writes in flight vary with the disk from one moment
// to the next (at most 256 KiB of events wait for a commit: the output
// gate, commit-before-deliver.test.ts), which a 4 MiB bound on two
// snapshots cannot tell from a leak.
const bridge = useDaemon((scratch) => ({
  env: { NODE_OPTIONS: heapSnapshotFlags(scratch).join(' ') },
  config: {
    metrics: { listen: '127.0.0.1:0' },
    storage: { backend: 'memory' },
    sessions: { event_buffer_size: RING, max_per_project: 10, max_global: 10 },
  },
  fakeProviders: { echo: ['echo'], lines: ['lines', '200'], flood: ['flood', '180'] },
}));

const start = async (provider: string) => (await bridge.sessions().start(provider)).sessionId;

const input = (sessionId: string, text: string) =>
  bridge.call((c) => c.sendInput, { sessionId, text, idempotencyKey: '' });
const get = (sessionId: string) => bridge.call((c) => c.getSession, { sessionId });
const seqs = (events: SessionEvent[]) => events.map((e) => Number(e.seq));
const contiguous = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('replay, live tail and resume', () => {
  it('replays then tails live without a gap or a duplicate while input keeps arriving', async () => {
    const id = await start('echo');
    for (let i = 0; i < 5; i++) await input(id, `before ${i}`);
    const reading = collect(
      bridge.stream({ sessionId: id, afterSeq: 0n }),
      (e) => e.text === 'echo: after 9',
    );
    const sends = Array.from({ length: 10 }, (_, i) => input(id, `after ${i}`));
    await Promise.all(sends);
    const { events } = await reading;
    expect(seqs(events)).toEqual(contiguous(1, events.length));
    expect(events.filter((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)).toHaveLength(15);
  });

  it('resumes after a disconnect from after_seq and from the acked cursor, after_seq winning', async () => {
    const id = await start('echo');
    await input(id, 'one');
    const first = await collect(
      bridge.stream({ sessionId: id, subscriberId: 'cp-a' }),
      (e) => e.text === 'echo: one',
    );
    const lastSeen = Number(first.events.at(-1)!.seq);
    // Disconnected: more happens meanwhile.
    await input(id, 'two');
    await input(id, 'three');
    await waitFor(
      'the inputs and echoes of "two" and "three"',
      async () => Number((await get(id)).lastSeq) >= lastSeen + 4,
    );
    const byAfterSeq = await collect(
      bridge.stream({ sessionId: id, afterSeq: BigInt(lastSeen) }),
      (e) => e.text === 'echo: three',
    );
    expect(seqs(byAfterSeq.events)).toEqual(contiguous(lastSeen + 1, byAfterSeq.events.length));
    expect(byAfterSeq.events.map((e) => e.text)).toContain('echo: two');

    // The acked cursor: no after_seq, same subscriber id.
    const ack = await bridge.call((c) => c.ackEvents, {
      sessionId: id,
      subscriberId: 'cp-a',
      ackSeq: BigInt(lastSeen),
      historyId: '',
    });
    expect(Number(ack.ackSeq)).toBe(lastSeen);
    const byCursor = await collect(
      bridge.stream({ sessionId: id, subscriberId: 'cp-a' }),
      (e) => e.text === 'echo: three',
    );
    expect(Number(byCursor.events[0]!.seq)).toBe(lastSeen + 1);
    // Acks never move back.
    const back = await bridge.call((c) => c.ackEvents, {
      sessionId: id,
      subscriberId: 'cp-a',
      ackSeq: 1n,
      historyId: '',
    });
    expect(Number(back.ackSeq)).toBe(lastSeen);
    // An explicit after_seq beats the cursor.
    const explicit = await collect(
      bridge.stream({ sessionId: id, subscriberId: 'cp-a', afterSeq: 1n }),
      (e) => e.text === 'echo: one',
    );
    expect(Number(explicit.events[0]!.seq)).toBe(2);
    // A subscriber without a cursor starts at the oldest retained event.
    const fresh = await collect(
      bridge.stream({ sessionId: id, subscriberId: 'cp-new' }),
      (e) => e.text === 'echo: one',
    );
    expect(Number(fresh.events[0]!.seq)).toBe(1);
  });

  it('rejects after_seq and ack_seq beyond the last seq with OUT_OF_RANGE, changing nothing', async () => {
    const id = await start('echo');
    // Once its ready line is in, the echo agent is quiet: the last seq stays put.
    await collect(bridge.stream({ sessionId: id, afterSeq: 0n }), (e) => e.text === 'ready');
    const before = await bridge.call((c) => c.getSession, { sessionId: id });
    const beyond = before.lastSeq + 1n;
    const r = await collect(bridge.stream({ sessionId: id, afterSeq: beyond }));
    expect(r.error?.code).toBe(status.OUT_OF_RANGE);
    expect(
      await codeOf(
        bridge.call((c) => c.ackEvents, {
          sessionId: id,
          subscriberId: 'x',
          ackSeq: beyond,
          historyId: '',
        }),
      ),
    ).toBe(status.OUT_OF_RANGE);
    expect(
      await codeOf(
        bridge.call((c) => c.ackEvents, {
          sessionId: id,
          subscriberId: 'x',
          ackSeq: 2n ** 64n - 1n,
          historyId: '',
        }),
      ),
    ).toBe(status.OUT_OF_RANGE);
    const after = await bridge.call((c) => c.getSession, { sessionId: id });
    expect(after.lastSeq).toBe(before.lastSeq);
    expect(after.subscriberCount).toBe(0);
  });
});

describe('overflow', () => {
  it('tells a reader whose position was evicted the exact missing range, then continues', async () => {
    const id = await start('lines'); // 200 lines at start, ring holds 50
    await waitFor('the 200 lines (seq 202)', async () => Number((await get(id)).lastSeq) >= 202);
    const s = await bridge.call((c) => c.getSession, { sessionId: id });
    expect(Number(s.lastSeq) - Number(s.oldestSeq) + 1).toBe(RING);
    const oldest = Number(s.oldestSeq);
    const r = await collect(
      bridge.stream({ sessionId: id, afterSeq: 0n }),
      (_e, all) => all.length === RING + 1,
    );
    const [overflow, ...rest] = r.events;
    expect(overflow?.type).toBe(EventType.EVENT_TYPE_BUFFER_OVERFLOW);
    expect(overflow?.data).toEqual({ first_missing: 1, last_missing: oldest - 1 });
    expect(Number(overflow?.seq)).toBe(oldest - 1);
    expect(seqs(rest)).toEqual(contiguous(oldest, RING));
    // The same through a resumed subscriber cursor that fell behind.
    await bridge.call((c) => c.ackEvents, {
      sessionId: id,
      subscriberId: 'slow',
      ackSeq: 3n,
      historyId: '',
    });
    const c2 = await collect(
      bridge.stream({ sessionId: id, subscriberId: 'slow' }),
      (_e, all) => all.length === 2,
    );
    expect(c2.events[0]?.data).toEqual({ first_missing: 4, last_missing: oldest - 1 });
    expect(Number(c2.events[1]?.seq)).toBe(oldest);
  });

  it('D6 a reader that never reads while the child floods: the ring stays bounded, the daemon keeps answering and its memory flat, the reader learns the exact gap', async () => {
    const id = await start('flood');
    const stream = bridge.stream({ sessionId: id, afterSeq: 0n });
    const reader = watchEvents(stream);
    stream.pause();
    // Let the flood push far more than the ring and any transport buffer can hold.
    await waitFor(
      'the flood to pass seq 100000',
      async () => Number((await get(id)).lastSeq) > 100_000,
      60_000,
      200,
    );
    const liveHalfway = (await liveMemoryBytes(bridge)).total;
    await waitFor(
      'the flood to pass seq 200000',
      async () => Number((await get(id)).lastSeq) > 200_000,
      60_000,
      200,
    );
    const s = await get(id);
    expect(Number(s.lastSeq) - Number(s.oldestSeq) + 1).toBe(RING);
    // No backlog anywhere (rings, the stalled stream): what survives a full collection
    // grew by less than 4 MiB over the second 100,000 events (about 60 MiB
    // of output). The exact proof for the reader is below.
    const grown = (await liveMemoryBytes(bridge)).total - liveHalfway;
    expect(grown).toBeLessThan(4 * 1024 * 1024);
    // Meanwhile another session's input goes through and is answered.
    const other = await start('echo');
    await input(other, 'still answering');
    await collect(
      bridge.stream({ sessionId: other, afterSeq: 0n }),
      (e) => e.text === 'echo: still answering',
    );
    expect((await bridge.call((c) => c.health, {})).status).toBe('serving');
    stream.resume();
    const oldest = Number(s.oldestSeq);
    const isOverflow = (e: SessionEvent) => e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW;
    const caughtUp = (e: SessionEvent) => !isOverflow(e) && Number(e.seq) >= oldest;
    const received = await reader.until(
      `an event at or after seq ${oldest}, the ring's oldest while the reader was stalled`,
      (all) => all.some(caughtUp),
      20_000,
    );
    reader.cancel();
    await bridge.call((c) => c.stopSession, { sessionId: id, force: true });
    await bridge.call((c) => c.stopSession, { sessionId: other, force: true });
    // Every event from seq 1 on is either delivered or inside a gap announced
    // exactly: a BUFFER_OVERFLOW naming the first and last missing seq (its own seq).
    const wrong: string[] = [];
    let next = 1;
    for (const e of received) {
      const seq = Number(e.seq);
      if (isOverflow(e)) {
        const { first_missing, last_missing } = e.data as {
          first_missing: number;
          last_missing: number;
        };
        if (first_missing !== next || last_missing !== seq || last_missing < first_missing) {
          wrong.push(`overflow ${seq} ${JSON.stringify(e.data)} where seq ${next} was due`);
        }
        next = seq + 1;
      } else {
        if (seq !== next) wrong.push(`seq ${seq} where ${next} was due`);
        next = seq + 1;
      }
    }
    expect(wrong).toEqual([]);
    // The reader jumped over what the flood wrote while it was stalled: the
    // daemon did not keep that backlog for it, only its ring.
    const at = received.findIndex(caughtUp);
    expect(received[at - 1]?.type).toBe(EventType.EVENT_TYPE_BUFFER_OVERFLOW);
    // Before the gap it got only what the transport's buffers held when it
    // stalled (HTTP/2 windows of some hundred KiB), not the 200,000 events
    // that went by: the daemon honoured write() === false and kept no queue.
    expect(at - 1).toBeLessThan(20_000);
  }, 90_000);
});

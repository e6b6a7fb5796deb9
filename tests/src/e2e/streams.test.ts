import { randomUUID } from 'node:crypto';
import { type BridgeServiceClient, EventType, type SessionEvent } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  codeOf,
  collect,
  connect,
  createTestPki,
  mintToken,
  rssKiB,
  startDaemon,
  status,
  streamEvents,
  type TestDaemon,
  type TestPki,
  waitFor,
} from '../harness/index.js';

let pki: TestPki;
let daemon: TestDaemon;
let client: BridgeServiceClient;
let md: ReturnType<typeof bearer>;
const RING = 50;

beforeAll(async () => {
  pki = await createTestPki();
  daemon = await startDaemon({
    pki,
    config: { sessions: { event_buffer_size: RING, max_per_project: 10, max_global: 10 } },
    fakeProviders: { echo: ['echo'], lines: ['lines', '200'], flood: ['flood', '180'] },
  });
  client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  md = bearer(
    await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha', ttl: 300 }),
  );
});

afterAll(async () => {
  client?.close();
  await daemon?.stop();
});

async function start(provider: string): Promise<string> {
  const sessionId = randomUUID();
  await call(
    client,
    (c) => c.startSession,
    { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider, agentOpts: {} },
    md,
  );
  return sessionId;
}

const input = (sessionId: string, text: string) =>
  call(client, (c) => c.sendInput, { sessionId, text, idempotencyKey: '' }, md);
const seqs = (events: SessionEvent[]) => events.map((e) => Number(e.seq));
const contiguous = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('replay, live tail and resume', () => {
  it('replays then tails live without a gap or a duplicate while input keeps arriving', async () => {
    const id = await start('echo');
    for (let i = 0; i < 5; i++) await input(id, `before ${i}`);
    const reading = collect(
      streamEvents(client, { sessionId: id, afterSeq: 0n }, md),
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
      streamEvents(client, { sessionId: id, subscriberId: 'cp-a' }, md),
      (e) => e.text === 'echo: one',
    );
    const lastSeen = Number(first.events.at(-1)!.seq);
    // Disconnected: more happens meanwhile.
    await input(id, 'two');
    await input(id, 'three');
    await waitFor(async () => {
      const s = await call(client, (c) => c.getSession, { sessionId: id }, md);
      return Number(s.lastSeq) >= lastSeen + 4;
    });
    const byAfterSeq = await collect(
      streamEvents(client, { sessionId: id, afterSeq: BigInt(lastSeen) }, md),
      (e) => e.text === 'echo: three',
    );
    expect(seqs(byAfterSeq.events)).toEqual(contiguous(lastSeen + 1, byAfterSeq.events.length));
    expect(byAfterSeq.events.map((e) => e.text)).toContain('echo: two');

    // The acked cursor: no after_seq, same subscriber id.
    const ack = await call(
      client,
      (c) => c.ackEvents,
      { sessionId: id, subscriberId: 'cp-a', ackSeq: BigInt(lastSeen) },
      md,
    );
    expect(Number(ack.ackSeq)).toBe(lastSeen);
    const byCursor = await collect(
      streamEvents(client, { sessionId: id, subscriberId: 'cp-a' }, md),
      (e) => e.text === 'echo: three',
    );
    expect(Number(byCursor.events[0]!.seq)).toBe(lastSeen + 1);
    // Acks never move back.
    const back = await call(
      client,
      (c) => c.ackEvents,
      { sessionId: id, subscriberId: 'cp-a', ackSeq: 1n },
      md,
    );
    expect(Number(back.ackSeq)).toBe(lastSeen);
    // An explicit after_seq beats the cursor.
    const explicit = await collect(
      streamEvents(client, { sessionId: id, subscriberId: 'cp-a', afterSeq: 1n }, md),
      (e) => e.text === 'echo: one',
    );
    expect(Number(explicit.events[0]!.seq)).toBe(2);
    // A subscriber without a cursor starts at the oldest retained event.
    const fresh = await collect(
      streamEvents(client, { sessionId: id, subscriberId: 'cp-new' }, md),
      (e) => e.text === 'echo: one',
    );
    expect(Number(fresh.events[0]!.seq)).toBe(1);
  });

  it('rejects after_seq and ack_seq beyond the last seq with OUT_OF_RANGE, changing nothing', async () => {
    const id = await start('echo');
    const before = await call(client, (c) => c.getSession, { sessionId: id }, md);
    const beyond = before.lastSeq + 1n;
    const r = await collect(streamEvents(client, { sessionId: id, afterSeq: beyond }, md));
    expect(r.error?.code).toBe(status.OUT_OF_RANGE);
    expect(
      await codeOf(
        call(client, (c) => c.ackEvents, { sessionId: id, subscriberId: 'x', ackSeq: beyond }, md),
      ),
    ).toBe(status.OUT_OF_RANGE);
    expect(
      await codeOf(
        call(
          client,
          (c) => c.ackEvents,
          { sessionId: id, subscriberId: 'x', ackSeq: 2n ** 64n - 1n },
          md,
        ),
      ),
    ).toBe(status.OUT_OF_RANGE);
    const after = await call(client, (c) => c.getSession, { sessionId: id }, md);
    expect(after.lastSeq).toBe(before.lastSeq);
    expect(after.subscriberCount).toBe(0);
  });
});

describe('overflow', () => {
  it('tells a reader whose position was evicted the exact missing range, then continues', async () => {
    const id = await start('lines'); // 200 lines at start, ring holds 50
    await waitFor(
      async () =>
        Number((await call(client, (c) => c.getSession, { sessionId: id }, md)).lastSeq) >= 202,
    );
    const s = await call(client, (c) => c.getSession, { sessionId: id }, md);
    expect(Number(s.lastSeq) - Number(s.oldestSeq) + 1).toBe(RING);
    const oldest = Number(s.oldestSeq);
    const r = await collect(
      streamEvents(client, { sessionId: id, afterSeq: 0n }, md),
      (_e, all) => all.length === RING + 1,
    );
    const [overflow, ...rest] = r.events;
    expect(overflow?.type).toBe(EventType.EVENT_TYPE_BUFFER_OVERFLOW);
    expect(overflow?.data).toEqual({ first_missing: 1, last_missing: oldest - 1 });
    expect(Number(overflow?.seq)).toBe(oldest - 1);
    expect(seqs(rest)).toEqual(contiguous(oldest, RING));
    // The same through a resumed subscriber cursor that fell behind.
    await call(client, (c) => c.ackEvents, { sessionId: id, subscriberId: 'slow', ackSeq: 3n }, md);
    const c2 = await collect(
      streamEvents(client, { sessionId: id, subscriberId: 'slow' }, md),
      (_e, all) => all.length === 2,
    );
    expect(c2.events[0]?.data).toEqual({ first_missing: 4, last_missing: oldest - 1 });
    expect(Number(c2.events[1]?.seq)).toBe(oldest);
  });

  it('a reader that never reads while the child floods costs no daemon memory, then learns what it missed', async () => {
    const rss0 = rssKiB(daemon.pid);
    const id = await start('flood');
    const stream = streamEvents(client, { sessionId: id, afterSeq: 0n }, md);
    const received: SessionEvent[] = [];
    stream.on('data', (e: SessionEvent) => received.push(e));
    stream.on('error', () => undefined); // CANCELLED when we cancel below
    stream.pause();
    // Let the flood push far more than the ring and any transport buffer can hold.
    await waitFor(
      async () =>
        Number((await call(client, (c) => c.getSession, { sessionId: id }, md)).lastSeq) > 200_000,
      60_000,
      200,
    );
    const grown = rssKiB(daemon.pid) - rss0;
    expect(grown).toBeLessThan(150 * 1024);
    const s = await call(client, (c) => c.getSession, { sessionId: id }, md);
    expect(Number(s.lastSeq) - Number(s.oldestSeq) + 1).toBe(RING);
    stream.resume();
    await waitFor(
      () => received.some((e) => e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW),
      20_000,
    );
    stream.cancel();
    await call(client, (c) => c.stopSession, { sessionId: id, force: true }, md);
    const ov = received.find((e) => e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW)!;
    const idx = received.indexOf(ov);
    // Before the gap: contiguous from 1; the gap is announced exactly; after it: contiguous again.
    expect(seqs(received.slice(0, idx))).toEqual(contiguous(1, idx));
    const { first_missing, last_missing } = ov.data as {
      first_missing: number;
      last_missing: number;
    };
    expect(first_missing).toBe(idx + 1);
    expect(Number(received[idx + 1]?.seq)).toBe(last_missing + 1);
  }, 90_000);
});

import { within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.js';
import { kindOf, newSession, nextBatch } from '../testing/fixtures.js';
import { Subscriptions } from './subscriptions.js';

const line = (text: string) => ({ type: 'STDOUT' as const, stream: 'stdout' as const, text });
const batch = { maxEvents: 100, maxBytes: 1 << 20 };
const never = new AbortController().signal;

function setup() {
  const clock = new FakeClock();
  const session = newSession(clock, { maxSubscribers: 2, subscriberTtlMs: 10_000 });
  for (let i = 1; i <= 3; i++) session.append(line(`line ${i}`));
  return { clock, session, subs: new Subscriptions(clock, 2) };
}

describe('Subscriptions', () => {
  it('counts a stream as a reader until it is closed or returned, once', async () => {
    const { session, subs } = setup();
    const a = subs.open(
      session,
      { sessionId: session.id, afterSeq: 0, subscriberId: '' },
      never,
      batch,
    );
    const b = subs.open(
      session,
      { sessionId: session.id, afterSeq: 0, subscriberId: '' },
      never,
      batch,
    );
    expect(session.readers.count).toBe(2);
    expect(
      await kindOf(() =>
        subs.open(session, { sessionId: session.id, afterSeq: 0, subscriberId: '' }, never, batch),
      ),
    ).toBe('resource_exhausted');
    a.close();
    a.close();
    expect(session.readers.count).toBe(1);
    await within('the stream to return', b[Symbol.asyncIterator]().return!());
    expect(session.readers.count).toBe(0);
  });

  it('refuses to resume beyond the last event', async () => {
    const { session, subs } = setup();
    const req = { sessionId: session.id, afterSeq: 4, subscriberId: '' };
    expect(await kindOf(() => subs.open(session, req, never, batch))).toBe('out_of_range');
    expect(session.readers.count).toBe(0);
  });

  it('resumes from after_seq, else from the acked position, else from the oldest event', async () => {
    const { session, subs } = setup();
    const firstSeq = async (afterSeq: number | undefined, subscriberId: string) => {
      const stream = subs.open(
        session,
        { sessionId: session.id, afterSeq, subscriberId },
        never,
        batch,
      );
      const [first] = await nextBatch(stream[Symbol.asyncIterator]());
      stream.close();
      return first?.seq;
    };
    expect(subs.ack(session, 'cp', 2)).toBe(2);
    expect(await firstSeq(undefined, 'cp')).toBe(3);
    expect(await firstSeq(0, 'cp')).toBe(1);
    expect(await firstSeq(undefined, '')).toBe(1);
  });

  it('moves acks forward only, never beyond the last event', async () => {
    const { session, subs } = setup();
    expect(subs.ack(session, 'cp', 2)).toBe(2);
    expect(subs.ack(session, 'cp', 1)).toBe(2);
    expect(subs.ack(session, 'cp', 3)).toBe(3);
    expect(await kindOf(() => subs.ack(session, 'cp', 4))).toBe('out_of_range');
  });

  it('keeps the session busy and the cursor alive while it reads, by the clock', async () => {
    const { clock, session, subs } = setup();
    subs.ack(session, 'cp', 1);
    const req = { sessionId: session.id, afterSeq: undefined, subscriberId: 'cp' };
    const stream = subs.open(session, req, never, batch);
    const events = stream[Symbol.asyncIterator]();
    clock.advance(9_000);
    expect((await nextBatch(events)).map((e) => e.seq)).toEqual([2, 3]);
    // Coming back for more is what shows the batch was consumed.
    const waiting = events.next();
    expect(session.readers.lastActivity).toBe(clock.now());
    clock.advance(9_000);
    expect(session.cursors.get('cp', clock.now())).toBe(1);
    stream.close();
    expect(session.readers.lastActivity).toBe(clock.now());
    clock.advance(9_999);
    expect(session.cursors.get('cp', clock.now())).toBe(1);
    clock.advance(1);
    expect(session.cursors.get('cp', clock.now())).toBeUndefined();
    session.fail('done', {});
    await within('the pending read to end', waiting);
  });
});

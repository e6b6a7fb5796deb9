import { within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import type { Session } from '../sessions/session.js';
import { FakeClock } from '../testing/fake-clock.js';
import { newSession, nextBatch, readToEnd } from '../testing/fixtures.js';
import { type ReadOptions, readEvents } from './event-reader.js';

const line = (text: string) => ({ type: 'STDOUT' as const, stream: 'stdout' as const, text });

function read(
  session: Session,
  opts: Partial<ReadOptions> & { afterSeq: number },
  signal = new AbortController().signal,
) {
  return readEvents(session, { maxBatchEvents: 100, maxBatchBytes: 1 << 20, ...opts }, signal);
}

describe('readEvents', () => {
  it('replays in batches bounded by count and by bytes', async () => {
    const session = newSession(new FakeClock());
    for (let i = 1; i <= 5; i++) session.append(line(`line ${i}`));
    const byCount = read(session, { afterSeq: 0, maxBatchEvents: 2 });
    expect((await nextBatch(byCount)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await nextBatch(byCount)).map((e) => e.seq)).toEqual([3, 4]);
    const oneEvent = session.ring.read(2, 1, Number.POSITIVE_INFINITY)!.bytes;
    const byBytes = read(session, { afterSeq: 1, maxBatchBytes: oneEvent * 3 });
    expect((await nextBatch(byBytes)).map((e) => e.seq)).toEqual([2, 3, 4]);
    expect((await nextBatch(byBytes)).map((e) => e.seq)).toEqual([5]);
  });

  it('tails live events after the replay, reporting each batch once the reader comes back', async () => {
    const session = newSession(new FakeClock());
    session.append(line('before'));
    const progress: number[] = [];
    const reading = new AbortController();
    const events = read(
      session,
      { afterSeq: 0, onProgress: (seq) => progress.push(seq) },
      reading.signal,
    );
    expect((await nextBatch(events)).map((e) => e.text)).toEqual(['before']);
    const live = nextBatch(events);
    session.append(line('live'));
    expect((await live).map((e) => e.text)).toEqual(['live']);
    expect(progress).toEqual([1]);
    const ended = within('the reader to notice the abort', events.next());
    expect(progress).toEqual([1, 2]);
    reading.abort();
    expect((await ended).done).toBe(true);
  });

  it('leaves nothing behind on an idle ring when readers come and go', async () => {
    const session = newSession(new FakeClock());
    session.append(line('only'));
    for (let i = 0; i < 3; i++) {
      const reading = new AbortController();
      const events = read(session, { afterSeq: 1 }, reading.signal);
      const waiting = events.next();
      await within('a turn of the loop', Promise.resolve());
      expect(session.ring.waitingReaders).toBe(1);
      reading.abort();
      expect((await within('the reader to end on abort', waiting)).done).toBe(true);
      expect(session.ring.waitingReaders).toBe(0);
    }
  });

  it('ends with the terminal event, and at once for a caught-up reader of an ended session', async () => {
    const session = newSession(new FakeClock());
    session.append(line('work'));
    session.fail('agent crashed', {});
    const events = await readToEnd(read(session, { afterSeq: 0 }));
    expect(events.map((e) => e.type)).toEqual(['STDOUT', 'SESSION_FAILED']);
    expect(await readToEnd(read(session, { afterSeq: session.ring.lastSeq }))).toEqual([]);
  });

  it('tells a reader that fell behind eviction which range it missed, stamped by the clock', async () => {
    const clock = new FakeClock();
    const session = newSession(clock, { eventBufferSize: 4 });
    const events = read(session, { afterSeq: 0 });
    for (let i = 1; i <= 10; i++) session.append(line(`line ${i}`));
    clock.advance(1234);
    const [overflow, ...rest] = await nextBatch(events);
    expect(rest).toEqual([]);
    expect(overflow).toMatchObject({
      seq: 6,
      type: 'BUFFER_OVERFLOW',
      stream: 'system',
      timestamp: clock.now(),
      sessionId: session.id,
      data: { first_missing: 1, last_missing: 6 },
    });
    expect(overflow?.text).toContain('6 events (seq 1..6)');
    expect((await nextBatch(events)).map((e) => e.seq)).toEqual([7, 8, 9, 10]);
  });
});

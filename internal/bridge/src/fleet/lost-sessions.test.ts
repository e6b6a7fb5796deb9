import { describe, expect, it } from 'vitest';
import { BridgeError } from '../errors.js';
import type { BridgeEvent } from '../events/event.js';
import { jsonEventCodec } from '../events/event-codec.js';
import type { EventSlice } from '../events/event-slice.js';
import { FakeClock } from '../testing/fake-clock.js';
import type { Caller } from '../types.js';
import { LostSessions } from './lost-sessions.js';
import type { SessionElsewhere, SessionsElsewhere } from './sessions-elsewhere.js';

const caller: Caller = { projectId: 'alpha', subject: 'cp' };
const S1 = '3f0c2a4e-8b1d-4c6f-9a2e-5d7b8c9e0f11';
const S2 = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const identity = { sessionId: S1, projectId: 'alpha', provider: 'echo' };
const signal = () => AbortSignal.timeout(5000);
const batch = { maxEvents: 2, maxBytes: 1 << 20 };

const event = (seq: number, type: BridgeEvent['type'] = 'STDOUT'): BridgeEvent => ({
  ...identity,
  seq,
  timestamp: 1000 + seq,
  type,
  stream: type === 'STDOUT' ? 'stdout' : 'system',
  text: `line ${seq}`,
  done: false,
  error: '',
  turnId: '',
  data: undefined,
});

/** A fleet holding one session of daemon `a` with `events`; its cursors kept in a map. */
function fleetOf(
  events: BridgeEvent[],
  opts: { live?: boolean; status?: 'RUNNING' | 'STOPPED' } = {},
) {
  const cursors = new Map<string, number>();
  const held: SessionElsewhere = {
    ...identity,
    home: { daemonId: 'a', address: '10.0.0.1:9445', historyId: 'h-a', live: opts.live ?? false },
    request: {
      projectId: 'alpha',
      sessionId: S1,
      repoPath: '/srv/app',
      provider: 'echo',
      agentOpts: {},
    },
    repoPath: '/srv/app',
    status: opts.status ?? 'RUNNING',
    createdAt: 500,
    facts: { pid: 42, error: '', exitSignal: '' },
    lastSeq: events.at(-1)?.seq ?? 0,
    async *events(afterSeq) {
      for (const e of events)
        if (e.seq > afterSeq) yield { seq: e.seq, bytes: jsonEventCodec.encode(e) };
    },
    cursor: async (id) => cursors.get(id),
    saveCursor: async (id, seq) => {
      cursors.set(id, seq);
    },
  };
  const elsewhere: SessionsElsewhere = {
    find: async (id) => (id === S1 ? held : undefined),
    lost: async (projectId) => (projectId === 'alpha' && !held.home.live ? [held] : []),
  };
  return { lost: new LostSessions(elsewhere, jsonEventCodec, new FakeClock()), cursors };
}

async function readAll(
  stream: AsyncIterable<EventSlice>,
): Promise<{ seqs: number[]; slices: EventSlice[] }> {
  const slices: EventSlice[] = [];
  for await (const s of stream) slices.push(s);
  return { seqs: slices.flatMap((s) => s.events().map((e) => e.seq)), slices };
}

async function refusal(p: Promise<unknown>): Promise<BridgeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BridgeError);
  return err as BridgeError;
}

describe('a lost session of the fleet, served read-only', () => {
  it('ends a history without a terminal event with SESSION_FAILED host_lost, one seq after the last', async () => {
    const { lost } = fleetOf([1, 2, 3].map((n) => event(n)));
    const { stream, historyId } = await lost.openStream(
      caller,
      { sessionId: S1, afterSeq: 0, subscriberId: '' },
      signal(),
      batch,
    );
    expect(historyId).toBe('h-a');
    const { seqs, slices } = await readAll(stream);
    expect(seqs).toEqual([1, 2, 3, 4]);
    // Within the batch bound, and only the last slice ends the stream.
    expect(slices.map((s) => [s.count, s.terminal])).toEqual([
      [2, false],
      [2, true],
    ]);
    const end = slices.at(-1)!.events().at(-1)!;
    expect(end).toMatchObject({
      type: 'SESSION_FAILED',
      done: true,
      data: { reason: 'host_lost', daemon_id: 'a', address: '10.0.0.1:9445' },
    });
    expect(end.error).toMatch(/has left the fleet/);
    const snap = (await lost.find(caller, S1, signal())).snapshot();
    expect(snap).toMatchObject({ status: 'FAILED', lastSeq: 4, oldestSeq: 1, pid: 0 });
  });

  it('adds no end to a history that has its own, and reports it as it ended', async () => {
    const { lost } = fleetOf([event(1), event(2), event(3, 'SESSION_STOPPED')], {
      status: 'STOPPED',
    });
    const { stream } = await lost.openStream(
      caller,
      { sessionId: S1, afterSeq: 1, subscriberId: '' },
      signal(),
      batch,
    );
    const { seqs, slices } = await readAll(stream);
    expect(seqs).toEqual([2, 3]);
    expect(slices.at(-1)!.terminal).toBe(true);
    expect((await lost.find(caller, S1, signal())).snapshot()).toMatchObject({
      status: 'STOPPED',
      lastSeq: 3,
    });
  });

  it('cuts a slice where the fleet lacks events, so each slice holds consecutive seqs', async () => {
    const { lost } = fleetOf([1, 2, 5, 6].map((n) => event(n)));
    const { stream } = await lost.openStream(
      caller,
      { sessionId: S1, afterSeq: 0, subscriberId: '' },
      signal(),
      { maxEvents: 10, maxBytes: 1 << 20 },
    );
    const { slices } = await readAll(stream);
    expect(slices.map((s) => [s.firstSeq, s.lastSeq])).toEqual([
      [1, 2],
      [5, 7],
    ]);
  });

  it('resumes a subscriber at its cursor, and moves the cursor only forward within the history', async () => {
    const { lost, cursors } = fleetOf([1, 2, 3].map((n) => event(n)));
    expect(await lost.ack(caller, S1, 'cp-1', 2, 'h-a', signal())).toBe(2);
    expect(await lost.ack(caller, S1, 'cp-1', 1, '', signal())).toBe(2);
    const { stream } = await lost.openStream(
      caller,
      { sessionId: S1, afterSeq: undefined, subscriberId: 'cp-1' },
      signal(),
      batch,
    );
    expect((await readAll(stream)).seqs).toEqual([3, 4]);
    // The end it was given can be acknowledged too.
    expect(await lost.ack(caller, S1, 'cp-1', 4, 'h-a', signal())).toBe(4);

    const beyond = await refusal(lost.ack(caller, S1, 'cp-1', 5, 'h-a', signal()));
    expect(beyond).toMatchObject({ kind: 'out_of_range', reason: 'ack_seq_beyond_last' });
    expect(beyond.message).toBe('ack_seq 5 is beyond the last seq 4');
    const other = await refusal(lost.ack(caller, S1, 'cp-1', 3, 'h-other', signal()));
    expect(other).toMatchObject({ kind: 'failed_precondition', reason: 'ack_of_other_history' });
    expect(other.message).toContain(
      `is not the history of session ${S1} (h-a), so no cursor was moved`,
    );
    expect(cursors.get('cp-1')).toBe(4);
  });

  it('refuses a read beyond the end, writes, another project and a live home, each with its code and reason', async () => {
    const { lost } = fleetOf([1, 2].map((n) => event(n)));
    const far = await refusal(
      lost.openStream(caller, { sessionId: S1, afterSeq: 4, subscriberId: '' }, signal(), batch),
    );
    expect(far).toMatchObject({ kind: 'out_of_range', reason: 'after_seq_beyond_last' });
    expect(far.message).toBe('after_seq 4 is beyond the last seq 3');

    const write = await refusal(lost.refuseWrite(caller, S1, signal()));
    expect(write).toMatchObject({ kind: 'failed_precondition', reason: 'host_lost' });
    expect(write.message).toBe(
      `session ${S1} lived on daemon a at 10.0.0.1:9445, which has left the fleet: its history is served read-only here and it takes no more input`,
    );

    const beta = await refusal(lost.find({ projectId: 'beta', subject: 'x' }, S1, signal()));
    expect(beta).toMatchObject({ kind: 'not_found', reason: 'session_of_other_project' });
    expect(beta.message).toBe(`session ${S1} not found`);
    expect(await lost.list({ projectId: 'beta', subject: 'x' }, signal())).toEqual([]);
    const unknown = await refusal(lost.find(caller, S2, signal()));
    expect(unknown).toMatchObject({ kind: 'not_found', reason: 'session_not_found' });

    const live = fleetOf([event(1)], { live: true }).lost;
    const elsewhere = await refusal(live.find(caller, S1, signal()));
    expect(elsewhere).toMatchObject({ kind: 'failed_precondition', reason: 'session_elsewhere' });
    expect(elsewhere.message).toBe(
      `session ${S1} runs on daemon a at 10.0.0.1:9445: call that daemon`,
    );
  });
});

import { within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../events/event-reader.js';
import type { EventSlice } from '../events/event-slice.js';
import { listSessions } from '../sessions/list-sessions.js';
import { FakeClock } from '../testing/fake-clock.js';
import { FakeAgent } from '../testing/fake-provider.js';
import { newSession, nextBatch, readToEnd } from '../testing/fixtures.js';
import { HeldStore } from '../testing/held-store.js';
import type { SessionStatus } from '../types.js';

function setup(overrides = {}) {
  const clock = new FakeClock();
  const store = new HeldStore();
  const session = newSession(clock, overrides, store);
  const agent = new FakeAgent(42, (ev) => session.append(ev), false);
  session.markSpawned(agent.pid);
  session.markRunning(agent);
  agent.exited.then((exit) => session.finish(exit));
  return { store, session, agent };
}

const line = (text: string) => ({ type: 'STDOUT' as const, stream: 'stdout' as const, text });

/** Whether `p` has settled after the events queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('events reach readers only once the store has committed them', () => {
  it('a reader waits for the commit, then gets every event in order', async () => {
    const { store, session } = setup();
    const stream = session.ring;
    session.append(line('one'));
    session.append(line('two'));
    expect(session.log.lastSeq).toBe(3);
    expect(stream.lastSeq).toBe(0);
    expect(store.logs.get(session.id)!.appended).toEqual([1, 2, 3]);
    store.commit();
    expect(stream.lastSeq).toBe(3);
    expect(
      stream
        .read(1, 10, Number.POSITIVE_INFINITY)!
        .events()
        .map((e) => e.text),
    ).toEqual([expect.stringContaining('started'), 'one', 'two']);
  });

  it('a live reader caught up is woken by the commit, not by the append', async () => {
    const { store, session } = setup();
    store.commit();
    const reader = readEvents(
      session,
      { afterSeq: session.log.lastSeq, maxBatchEvents: 10, maxBatchBytes: 1 << 20 },
      new AbortController().signal,
    );
    const next = reader.next();
    session.append(line('held'));
    expect(await settled(next)).toBe(false);
    store.commit();
    const got = await within('the committed event', next);
    expect((got.value as EventSlice).events().map((e) => e.text)).toEqual(['held']);
    await reader.return(undefined);
  });

  it('a seq a caller is told resolves only once committed (whenCommitted)', async () => {
    const { store, session } = setup();
    const seq = session.record({ type: 'INPUT_RECEIVED', stream: 'system', text: 'hi' }).seq;
    const told = session.log.whenCommitted(seq);
    expect(await settled(told)).toBe(false);
    store.commit();
    await within('the commit', told);
  });

  it('a store failure ends the session failed (store_failed), readers get its end, waiters are told', async () => {
    const { store, session, agent } = setup({ stopGracePeriodMs: 10 });
    store.commit();
    const reader = readEvents(
      session,
      { afterSeq: 0, maxBatchEvents: 100, maxBatchBytes: 1 << 20 },
      new AbortController().signal,
    );
    await nextBatch(reader);
    const seq = session.record({ type: 'INPUT_RECEIVED', stream: 'system', text: 'hi' }).seq;
    const told = session.log.whenCommitted(seq);
    store.fail(new Error('disk full'));
    await expect(within('the refusal', told)).rejects.toThrow('disk full');
    await within('the agent stopped', agent.exited);
    const rest = await readToEnd(reader);
    expect(rest.map((e) => e.type)).toEqual(['INPUT_RECEIVED', 'SESSION_FAILED']);
    expect(rest.at(-1)).toMatchObject({
      error: expect.stringContaining('disk full'),
      data: { reason: 'store_failed' },
    });
    expect(session.status).toBe('FAILED');
  });

  it('what the ring lets go of, the store lets go of too', () => {
    const { store, session } = setup({ eventBufferSize: 3 });
    for (let i = 0; i < 5; i++) session.append(line(`l${i}`));
    store.commit();
    expect(session.ring.oldestSeq).toBe(4);
    expect(store.logs.get(session.id)!.keptFrom).toBe(4);
  });

  it("closes the agent's output gate while more than 256 KiB wait for a commit, and reopens it once they are committed", () => {
    const { store, session } = setup({ eventBufferBytes: 64 * 1024 * 1024 });
    const gate = session.log.outputGate;
    const changes: boolean[] = [];
    gate.onChange((open) => changes.push(open));
    const big = 'x'.repeat(16 * 1024);
    let n = 0;
    while (gate.open && n < 1000) {
      session.append(line(`${n++} ${big}`));
    }
    // About 256 KiB of 16 KiB lines: the gate closed on its own bound, not the loop's.
    expect(gate.open).toBe(false);
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(20);
    expect(changes).toEqual([false]);
    store.commit();
    expect(gate.open).toBe(true);
    expect(changes).toEqual([false, true]);
    expect(session.ring.lastSeq).toBe(session.log.lastSeq);
  });

  it('reports an end once its terminal event is committed: STOPPING before, in snapshots and listings alike', async () => {
    const { store, session, agent } = setup();
    store.commit();
    agent.exit({ exitCode: 0, signal: null });
    await within('the agent to exit', agent.exited);
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.status).toBe('STOPPED');
    const caller = { projectId: 'alpha', subject: 'tester' };
    const list = (statuses: SessionStatus[]) =>
      listSessions([session], caller, {
        projectId: '',
        statuses,
        pageSize: 10,
        pageToken: '',
      }).sessions.map((s) => s.status);
    expect(session.snapshot()).toMatchObject({ status: 'STOPPING', stoppedAt: undefined });
    expect(list(['STOPPED'])).toEqual([]);
    expect(list(['STOPPING'])).toEqual(['STOPPING']);
    store.commit();
    expect(session.snapshot()).toMatchObject({ status: 'STOPPED', stoppedAt: expect.any(Date) });
    expect(session.snapshot().lastSeq).toBe(session.log.lastSeq);
    expect(list(['STOPPED'])).toEqual(['STOPPED']);
  });
});

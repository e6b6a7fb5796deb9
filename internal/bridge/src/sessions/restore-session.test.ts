import { describe, expect, it } from 'vitest';
import { readEvents } from '../events/event-reader.js';
import { FakeClock } from '../testing/fake-clock.js';
import { FakeAgent, FakeProvider } from '../testing/fake-provider.js';
import { newSession, readToEnd, sessionDeps } from '../testing/fixtures.js';
import { HeldStore } from '../testing/held-store.js';
import { restoreSession } from './restore-session.js';
import { sendInput } from './send-input.js';
import { Session } from './session.js';
import { SessionTable } from './session-table.js';

const line = (text: string) => ({ type: 'STDOUT' as const, stream: 'stdout' as const, text });

/** A session running in `store`, its agent able to exit. */
function running(clock: FakeClock, store: HeldStore): { session: Session; agent: FakeAgent } {
  const session = newSession(clock, {}, store);
  const agent = new FakeAgent(7, (ev) => session.append(ev), false);
  session.markSpawned(agent.pid);
  session.markRunning(agent);
  agent.exited.then((exit) => session.finish(exit));
  return { session, agent };
}

/** What a daemon started on `store` would hold: every stored session, restored. */
function restart(clock: FakeClock, store: HeldStore): SessionTable {
  const table = new SessionTable();
  const providers = new Map([['fake', new FakeProvider()]]);
  for (const stored of store.storedSessions()) {
    restoreSession(stored, sessionDeps(clock, {}, store), table, providers);
  }
  return table;
}

const all = (s: Session) =>
  s.ring.read(s.ring.oldestSeq, 1000, Number.POSITIVE_INFINITY)?.events() ?? [];

describe('a session restored from its store', () => {
  it('an ended one: the same events under the same seqs, its status and facts, readers ending at its end', async () => {
    const clock = new FakeClock();
    const store = new HeldStore();
    const { session } = running(clock, store);
    session.append(line('one'));
    session.append(line('two'));
    await session.stop('stop_requested', false);
    store.commit();
    const before = all(session);
    const snapshot = session.snapshot();

    const restored = restart(clock, store).get(session.id)!;
    expect(all(restored)).toEqual(before);
    expect(restored.snapshot()).toEqual({ ...snapshot, subscriberCount: 0 });
    expect(restored.lifetime.aborted).toBe(true);
    const reader = readEvents(
      restored,
      { afterSeq: 1, maxBatchEvents: 100, maxBatchBytes: 1 << 20 },
      new AbortController().signal,
    );
    expect((await readToEnd(reader)).map((e) => e.seq)).toEqual(before.slice(1).map((e) => e.seq));
  });

  it('a live one ends failed (daemon_restarted) at the next seq, after what was committed only', () => {
    const clock = new FakeClock();
    const store = new HeldStore();
    const { session } = running(clock, store);
    session.append(line('kept'));
    store.commit();
    session.append(line('never committed'));
    const committed = session.ring.lastSeq;

    const restored = restart(clock, store).get(session.id)!;
    expect(restored.status).toBe('FAILED');
    expect(restored.ring.complete).toBe(false);
    store.commit();
    const events = all(restored);
    expect(events.map((e) => e.seq)).toEqual(
      Array.from({ length: committed + 1 }, (_, i) => i + 1),
    );
    expect(events.at(-2)?.text).toBe('kept');
    expect(events.at(-1)).toMatchObject({
      type: 'SESSION_FAILED',
      seq: committed + 1,
      data: { reason: 'daemon_restarted' },
    });
    expect(restored.ring.complete).toBe(true);
  });

  it("keeps its subscribers' cursors", async () => {
    const clock = new FakeClock();
    const store = new HeldStore();
    const { session } = running(clock, store);
    session.append(line('a'));
    store.commit();
    await store.saveCursor(session.id, { subscriberId: 'cp', ackSeq: 2, touchedAt: clock.now() });
    const restored = restart(clock, store).get(session.id)!;
    expect(restored.cursors.get('cp', clock.now())).toBe(2);
  });

  it('of a provider no longer configured: readable, and its start-up refused', async () => {
    const clock = new FakeClock();
    const store = new HeldStore();
    const { session } = running(clock, store);
    await session.stop('stop_requested', false);
    store.commit();
    const table = new SessionTable();
    for (const stored of store.storedSessions()) {
      restoreSession(stored, sessionDeps(clock, {}, store), table, new Map());
    }
    const restored = table.get(session.id)!;
    expect(restored.status).toBe('STOPPED');
    expect((await restored.provider.health()).error).toContain('no longer configured');
  });

  it('one that was being stopped is not resumed: it ends failed, and its conversation is let go of', () => {
    const clock = new FakeClock();
    const store = new HeldStore();
    const provider = new FakeProvider('fake', { resume: true });
    const deps = sessionDeps(clock, {}, store);
    const request = {
      projectId: 'alpha',
      sessionId: 's1',
      repoPath: '/repo',
      provider: 'fake',
      agentOpts: {},
    };
    const session = new Session(request, '/repo', provider, deps);
    const agent = new FakeAgent(7, (ev) => session.append(ev), false);
    const point = { conversationId: 'conv-1', home: '/homes/agent-bridge-home-s1' };
    agent.resumePoint = point;
    session.markSpawned(agent.pid);
    session.markRunning(agent);
    void session.stop('stop_requested', false);
    store.commit(); // the daemon went while the agent was stopping

    const table = new SessionTable();
    const [stored] = [...store.storedSessions()];
    const resumed = restoreSession(stored!, deps, table, new Map([['fake', provider]]));
    expect(resumed).toBeUndefined();
    const restored = table.get('s1')!;
    expect(restored.status).toBe('FAILED');
    expect(restored.snapshot().error).toContain('it was being stopped');
    expect(provider.discarded).toEqual([point]);
  });

  it('answers an input retried after the restart with the seq it was first accepted with, delivering nothing', () => {
    const clock = new FakeClock();
    const store = new HeldStore();
    const { session, agent } = running(clock, store);
    const seq = sendInput(session, 'do it once', 'key-1', 1000);
    store.commit();
    const restored = restart(clock, store).get(session.id)!;
    expect(sendInput(restored, 'do it once', 'key-1', 1000)).toBe(seq);
    expect(agent.inputs).toEqual(['do it once']);
    // No INPUT_RECEIVED recorded again (the one more event is the restart's end).
    expect(
      all(restored)
        .filter((e) => e.type === 'INPUT_RECEIVED')
        .map((e) => e.seq),
    ).toEqual([seq]);
  });
});

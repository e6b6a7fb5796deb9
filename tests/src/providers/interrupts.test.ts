import { join } from 'node:path';
import { ofType, REPO_ROOT, showEvents, turnsDone, useDaemon } from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

// InterruptTurn at every point of a turn, for every structured adapter,
// through the real daemon and the fake CLIs. An interrupt is never lost,
// and its answer always agrees with the turn's TURN_COMPLETED.

const T = EventType;
const fixture = (name: string) => join(REPO_ROOT, 'tests/fixtures', name);

/**
 * Each adapter with what its TURN_COMPLETED says of an interrupted turn. The
 * fake codex answers turn/start only after a pause and starts the turn a
 * pause later, refusing turn/interrupt until then, as codex does; so an
 * interrupt sent right after SendInput reaches the adapter before codex has
 * acknowledged the turn, and one sent at TURN_STARTED before it has begun.
 * (The pauses only make those points likely over gRPC; the drivers' unit
 * tests hit each of them exactly.)
 */
const ADAPTERS = {
  claude: {
    provider: { adapter: 'claude', binary: fixture('fake-claude.mjs') },
    stopped: { status: 'interrupted' },
  },
  codex: {
    provider: {
      adapter: 'codex',
      binary: fixture('fake-codex.mjs'),
      env: { FAKE_CODEX_TURN_ACK_MS: '400', FAKE_CODEX_TURN_START_MS: '400' },
    },
    stopped: { status: 'interrupted' },
  },
  opencode: {
    provider: { adapter: 'acp', binary: fixture('fake-opencode.mjs'), args: ['acp'] },
    stopped: { stop_reason: 'cancelled' },
  },
  gemini: {
    provider: {
      adapter: 'acp',
      binary: fixture('fake-gemini.mjs'),
      args: ['--acp'],
      env: { GEMINI_API_KEY: 'test-key' },
    },
    stopped: { stop_reason: 'cancelled' },
  },
} as const;

const bridge = useDaemon({
  config: {
    sessions: { max_per_project: 20, max_global: 20 },
    providers: Object.fromEntries(
      Object.entries(ADAPTERS).map(([id, a]) => [id, { ...a.provider, turn_timeout: '60s' }]),
    ),
  },
});

const completed = (all: SessionEvent[]) => ofType(all, T.EVENT_TYPE_TURN_COMPLETED);
/** The events that belong to a turn. */
const TURN_EVENTS = new Set([
  T.EVENT_TYPE_TURN_STARTED,
  T.EVENT_TYPE_AGENT_MESSAGE_DELTA,
  T.EVENT_TYPE_AGENT_MESSAGE,
  T.EVENT_TYPE_TOOL_CALL,
  T.EVENT_TYPE_TOOL_RESULT,
  T.EVENT_TYPE_AGENT_ERROR,
  T.EVENT_TYPE_TURN_COMPLETED,
]);

describe.each(Object.entries(ADAPTERS))('%s: InterruptTurn', (id, { stopped }) => {
  /**
   * Sends a turn that only an interrupt ends, interrupts it once `ready`
   * holds for the events so far, and checks that the interrupt took: the
   * answer, the turn's shape, and a next turn that runs normally.
   */
  async function interruptHangingTurn(ready?: (all: SessionEvent[]) => boolean) {
    const s = await bridge.sessions().start(id);
    await s.send('HANG until interrupted');
    if (ready) await s.events(ready);
    const res = await s.interrupt();
    const all = await s.events(turnsDone(1));
    const why = showEvents(all);
    expect(res.interrupted, why).toBe(true);
    const turn = all.filter((e) => TURN_EVENTS.has(e.type));
    expect(turn[0]?.type, why).toBe(T.EVENT_TYPE_TURN_STARTED);
    expect(turn.at(-1)?.type, why).toBe(T.EVENT_TYPE_TURN_COMPLETED);
    expect(new Set(turn.map((e) => e.turnId)), why).toEqual(new Set([res.turnId]));
    expect(completed(all)[0]?.data, why).toMatchObject({ interrupted: true, ...stopped });
    expect(ofType(all, T.EVENT_TYPE_AGENT_ERROR), why).toEqual([]);
    await s.send('hello');
    const next = await s.events(turnsDone(2));
    expect(completed(next)[1]?.data, showEvents(next)).toMatchObject({ interrupted: false });
    await s.stop();
  }

  it('right after SendInput returns, before the agent has acknowledged the turn', async () => {
    await interruptHangingTurn();
  });

  it('right at TURN_STARTED, before the agent has begun the turn', async () => {
    await interruptHangingTurn((all) => ofType(all, T.EVENT_TYPE_TURN_STARTED).length > 0);
  });

  it('mid-stream', async () => {
    await interruptHangingTurn((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
  });

  it('after the turn ended: nothing is interrupted and nothing more is recorded', async () => {
    const s = await bridge.sessions().start(id);
    await s.send('hello');
    const before = await s.events(turnsDone(1));
    expect(await s.interrupt()).toEqual({ interrupted: false, turnId: '' });
    expect(completed(before)[0]?.data).toMatchObject({ interrupted: false });
    await s.stop();
    const after = await s.events();
    expect(after.slice(before.length).map((e) => e.type)).toEqual([T.EVENT_TYPE_SESSION_STOPPED]);
  });
});

describe.each(['opencode', 'gemini'])('%s: an interrupt the agent does not honour', (id) => {
  it('is answered interrupted: false, as its TURN_COMPLETED (end_turn) says', async () => {
    const s = await bridge.sessions().start(id);
    await s.send('UNSTOPPABLE');
    await s.events((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
    const res = await s.interrupt();
    const all = await s.events(turnsDone(1));
    expect(res, showEvents(all)).toEqual({ interrupted: false, turnId: completed(all)[0]?.turnId });
    expect(completed(all)[0]?.data, showEvents(all)).toMatchObject({
      stop_reason: 'end_turn',
      interrupted: false,
    });
    await s.stop();
  });
});

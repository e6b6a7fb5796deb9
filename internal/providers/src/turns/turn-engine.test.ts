import { endCause, ScopeEnded } from '@agent-bridge/scope';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InputClosedError } from '../contract/errors.js';
import type { AgentEvent } from '../contract/events.js';
import type { Turn, TurnProtocol } from './turn.js';
import { TurnEngine } from './turn-engine.js';

/**
 * A protocol whose agent does what the test says: it records the inputs it
 * was written, begins turns only when told (or at once), and answers cancels
 * as configured.
 */
function setup(
  opts: {
    beginAtOnce?: boolean;
    timeoutMs?: number;
    cancel?: 'ok' | 'refuse';
    /** Called as each event is emitted, before the engine goes on. */
    onEmit?: (e: AgentEvent) => void;
  } = {},
) {
  const events: AgentEvent[] = [];
  const written: string[] = [];
  const cancels: string[] = [];
  const log: string[] = [];
  let closed = false;
  let inputOpen = true;
  let kills = 0;
  const lifetime = new AbortController();
  const engine = new TurnEngine({
    lifetime: lifetime.signal,
    inputOpen: () => inputOpen,
    emit: (e) => {
      opts.onEmit?.(e);
      events.push(e);
      log.push(`${e.type} ${e.turnId ?? ''}`.trim());
    },
    timeoutMs: opts.timeoutMs ?? 0,
    kill: () => {
      kills++;
    },
    interruptWaitMs: 1000,
  });
  const protocol: TurnProtocol = {
    startTurn(text: string, turn: Turn) {
      if (closed) throw new InputClosedError();
      written.push(text);
      engine.announce(turn);
      if (opts.beginAtOnce ?? true) engine.begun(turn);
    },
    async cancelTurn(turn: Turn) {
      cancels.push(turn.id);
      if (opts.cancel === 'refuse') throw new Error('no active turn');
    },
  };
  engine.attach(protocol);
  const send = (text: string) =>
    engine.send(text, () => {
      log.push(`INPUT ${text}`);
    });
  const end = (cancelled = false) => {
    const turn = engine.current;
    if (!turn) throw new Error('no running turn');
    engine.complete(turn, { text: cancelled ? 'cancelled' : 'done', cancelled, data: {} });
  };
  return {
    engine,
    lifetime,
    events,
    written,
    cancels,
    log,
    send,
    end,
    kills: () => kills,
    /** The next write fails, as the first write to an agent that stopped reading does. */
    closeInput: () => {
      closed = true;
    },
    /** The daemon has seen the input close (EPIPE, or the agent exited). */
    inputGone: () => {
      inputOpen = false;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('TurnEngine', () => {
  it('records each input before its TURN_STARTED and numbers the turns', () => {
    const t = setup();
    t.send('one');
    t.end();
    t.send('two');
    t.end();
    expect(t.log).toEqual([
      'INPUT one',
      'TURN_STARTED turn-1',
      'TURN_COMPLETED turn-1',
      'INPUT two',
      'TURN_STARTED turn-2',
      'TURN_COMPLETED turn-2',
    ]);
  });

  it('queues inputs while a turn runs: recorded at once, each its own turn when the one before ends', () => {
    const t = setup();
    t.send('one');
    t.send('two');
    t.send('three');
    expect(t.written).toEqual(['one']);
    t.end();
    expect(t.written).toEqual(['one', 'two']);
    t.end();
    t.end();
    expect(t.log).toEqual([
      'INPUT one',
      'TURN_STARTED turn-1',
      'INPUT two',
      'INPUT three',
      'TURN_COMPLETED turn-1',
      'TURN_STARTED turn-2',
      'TURN_COMPLETED turn-2',
      'TURN_STARTED turn-3',
      'TURN_COMPLETED turn-3',
    ]);
    expect(t.events.find((e) => e.turnId === 'turn-2')?.data).toEqual({ queued: true });
  });

  it('takes the id the agent names the turn with, from TURN_STARTED on', () => {
    const t = setup();
    const engine = t.engine;
    engine.attach({
      startTurn: () => {},
      cancelTurn: async () => {},
    });
    t.send('x');
    const turn = engine.current!;
    expect(t.events).toEqual([]);
    engine.announce(turn, { thread_id: 'th' }, 'agent-7');
    engine.complete(turn, { text: 'completed', cancelled: false, data: {} });
    expect(t.events.map((e) => [e.type, e.turnId, e.data])).toEqual([
      ['TURN_STARTED', 'agent-7', { thread_id: 'th' }],
      ['TURN_COMPLETED', 'agent-7', { interrupted: false }],
    ]);
  });

  it('refuses an input whose write fails, before it is recorded, and leaves no turn behind', () => {
    const t = setup();
    t.closeInput();
    expect(() => t.send('lost')).toThrow(InputClosedError);
    expect(t.log).toEqual([]);
    expect(t.engine.current).toBeUndefined();
  });

  it('refuses, before recording it, an input that would queue behind a turn when the agent no longer reads', () => {
    const t = setup();
    t.send('one');
    t.inputGone();
    expect(() => t.send('two')).toThrow(InputClosedError);
    expect(t.log).toEqual(['INPUT one', 'TURN_STARTED turn-1']);
  });

  it('passes on an error of the driver itself as it is, not as a closed input', () => {
    const t = setup();
    t.engine.attach({
      startTurn: () => {
        throw new TypeError('a driver bug');
      },
      cancelTurn: async () => {},
    });
    expect(() => t.send('x')).toThrow(TypeError);
    expect(t.engine.current).toBeUndefined();
  });

  it('reports a queued input that cannot be written and drops the rest of the queue', () => {
    const t = setup();
    t.send('one');
    t.send('two');
    t.send('three');
    t.closeInput();
    t.end();
    expect(t.events.at(-1)).toMatchObject({
      type: 'AGENT_ERROR',
      data: { reason: 'input_closed' },
    });
    expect(t.engine.current).toBeUndefined();
  });

  it('holds an interrupt until the agent has begun the turn', async () => {
    const t = setup({ beginAtOnce: false });
    t.send('x');
    const turn = t.engine.current!;
    const res = t.engine.interrupt();
    expect(t.cancels).toEqual([]);
    t.engine.begun(turn);
    expect(t.cancels).toEqual(['turn-1']);
    t.end(true);
    expect(await res).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(t.events.at(-1)?.data).toEqual({ interrupted: true });
  });

  it('withdraws a held interrupt the agent never got to', async () => {
    vi.useFakeTimers();
    const t = setup({ beginAtOnce: false });
    t.send('x');
    const turn = t.engine.current!;
    const res = t.engine.interrupt();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await res).toEqual({ interrupted: false, turnId: 'turn-1' });
    t.engine.begun(turn);
    expect(t.cancels).toEqual([]);
    t.end(true);
    expect(t.events.at(-1)?.data).toEqual({ interrupted: false });
  });

  it('counts a cancelled end as interrupted only when an interrupt asked for it', () => {
    const t = setup();
    t.send('x');
    t.end(true);
    expect(t.events.at(-1)?.data).toEqual({ interrupted: false });
  });

  it('answers a refused cancel at once with interrupted false, and the end does not claim it', async () => {
    const t = setup({ cancel: 'refuse' });
    t.send('x');
    expect(await t.engine.interrupt()).toEqual({ interrupted: false, turnId: 'turn-1' });
    t.end(true);
    expect(t.events.at(-1)?.data).toEqual({ interrupted: false });
    t.send('y');
    expect(t.written).toEqual(['x', 'y']);
  });

  it('keeps the answer and TURN_COMPLETED in agreement when the turn ends only after the wait', async () => {
    vi.useFakeTimers();
    const t = setup();
    t.send('x');
    const res = t.engine.interrupt();
    expect(t.cancels).toEqual(['turn-1']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await res).toEqual({ interrupted: false, turnId: 'turn-1' });
    // The agent ends the turn as cancelled after all: the turn keeps the answer it was given.
    t.end(true);
    expect(t.events.at(-1)).toMatchObject({ text: 'cancelled', data: { interrupted: false } });
  });

  it('a held interrupt gets the whole wait from the moment it is delivered', async () => {
    vi.useFakeTimers();
    const t = setup({ beginAtOnce: false });
    t.send('x');
    const turn = t.engine.current!;
    const res = t.engine.interrupt();
    await vi.advanceTimersByTimeAsync(900);
    t.engine.begun(turn);
    expect(t.cancels).toEqual(['turn-1']);
    await vi.advanceTimersByTimeAsync(900);
    t.end(true);
    expect(await res).toEqual({ interrupted: true, turnId: 'turn-1' });
  });

  it('a later interrupt of the same turn supersedes the "no" an earlier one got', async () => {
    vi.useFakeTimers();
    const t = setup();
    t.send('x');
    const first = t.engine.interrupt();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await first).toEqual({ interrupted: false, turnId: 'turn-1' });
    const second = t.engine.interrupt();
    t.end(true);
    expect(await second).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(t.events.at(-1)?.data).toEqual({ interrupted: true });
  });

  it('shares one cancel and one answer among concurrent interrupts', async () => {
    const t = setup();
    t.send('x');
    const a = t.engine.interrupt();
    const b = t.engine.interrupt();
    expect(t.cancels).toEqual(['turn-1']);
    t.end(true);
    expect(await Promise.all([a, b])).toEqual([
      { interrupted: true, turnId: 'turn-1' },
      { interrupted: true, turnId: 'turn-1' },
    ]);
  });

  it('interrupts the running turn only: a queued input runs next, as its own turn', async () => {
    const t = setup();
    t.send('one');
    t.send('two');
    const res = t.engine.interrupt();
    t.end(true);
    expect(await res).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(t.written).toEqual(['one', 'two']);
    expect(t.engine.current?.id).toBe('turn-2');
    expect(t.engine.current?.interruptRequested).toBe(false);
  });

  it('reports a turn the agent refused to start, and goes on with the next input', () => {
    const t = setup();
    t.send('one');
    t.send('two');
    t.engine.abandon(t.engine.current!, {
      type: 'AGENT_ERROR',
      stream: 'system',
      text: 'refused',
      turnId: 'turn-1',
    });
    expect(t.log).toEqual([
      'INPUT one',
      'TURN_STARTED turn-1',
      'INPUT two',
      'AGENT_ERROR turn-1',
      'TURN_STARTED turn-2',
    ]);
  });

  it('ends an interrupt wait with interrupted false when the agent dies, and refuses input after', async () => {
    const t = setup();
    t.send('x');
    const res = t.engine.interrupt();
    t.engine.close();
    expect(await res).toEqual({ interrupted: false, turnId: 'turn-1' });
    expect(() => t.send('late')).toThrow(InputClosedError);
    expect(t.events.map((e) => e.type)).toEqual(['TURN_STARTED']);
  });

  it('interrupts a turn past its deadline, and kills the agent when that fails', async () => {
    vi.useFakeTimers();
    const t = setup({ timeoutMs: 500, cancel: 'refuse' });
    t.send('x');
    await vi.advanceTimersByTimeAsync(499);
    expect(t.cancels).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.events.at(-1)).toMatchObject({
      type: 'AGENT_ERROR',
      turnId: 'turn-1',
      error: 'turn timeout',
      data: { reason: 'turn_timeout', timeout_ms: 500 },
    });
    expect(t.cancels).toEqual(['turn-1']);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.kills()).toBe(1);
  });

  it('kills nothing when the timed-out turn ends as interrupted, and times only the running turn', async () => {
    vi.useFakeTimers();
    const t = setup({ timeoutMs: 500 });
    t.send('x');
    await vi.advanceTimersByTimeAsync(500);
    t.end(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.kills()).toBe(0);
    expect(t.events.at(-1)?.data).toEqual({ interrupted: true });
    t.send('y');
    t.end();
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.events.filter((e) => e.type === 'AGENT_ERROR')).toHaveLength(1);
  });

  it("ends a turn's scope before its TURN_COMPLETED: turn_end, or interrupt when it was cancelled", () => {
    let turn: Turn | undefined;
    const atCompletion: (string | undefined)[] = [];
    const t = setup({
      onEmit: (e) => {
        if (e.type === 'TURN_COMPLETED') atCompletion.push(turn && endCause(turn.signal));
      },
    });
    t.send('one');
    turn = t.engine.current;
    t.end();
    t.send('two');
    turn = t.engine.current!;
    void t.engine.interrupt();
    // At once, with the cancel: what the turn waits on is refused before it ends.
    expect(endCause(turn.signal)).toBe('interrupt');
    t.end(true);
    expect(atCompletion).toEqual(['turn_end', 'interrupt']);
  });

  it("ends the running turn's scope with the session's, keeping the session's cause", () => {
    const t = setup();
    t.send('one');
    const turn = t.engine.current!;
    expect(turn.signal.aborted).toBe(false);
    t.lifetime.abort(new ScopeEnded('stop'));
    expect(endCause(turn.signal)).toBe('stop');
    t.end();
    expect(endCause(turn.signal)).toBe('stop');
  });

  it("ends the running turn's scope as exit when the agent is gone", () => {
    const t = setup();
    t.send('one');
    const turn = t.engine.current!;
    t.engine.close();
    expect(endCause(turn.signal)).toBe('exit');
  });

  it('has no deadline when the timeout is 0', async () => {
    vi.useFakeTimers();
    const t = setup({ timeoutMs: 0 });
    t.send('x');
    await vi.advanceTimersByTimeAsync(10 ** 9);
    expect(t.events.map((e) => e.type)).toEqual(['TURN_STARTED']);
  });
});

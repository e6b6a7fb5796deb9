import { within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.js';
import { FakeAgent } from '../testing/fake-provider.js';
import { kindOf, newSession } from '../testing/fixtures.js';

function setup() {
  const clock = new FakeClock();
  const session = newSession(clock, { stopGracePeriodMs: 750 });
  const agent = new FakeAgent(42, (ev) => session.append(ev), false);
  return { clock, session, agent };
}

const types = (s: ReturnType<typeof setup>['session']) =>
  s.ring
    .read(s.ring.oldestSeq, 100, Number.POSITIVE_INFINITY)!
    .events()
    .map((e) => e.type);

describe('Session', () => {
  it('runs once started, and refuses its agent to callers before and after', async () => {
    const { session, agent } = setup();
    expect(await kindOf(() => session.runningAgent())).toBe('failed_precondition');
    session.markSpawned(agent.pid);
    session.markRunning(agent);
    expect(session.status).toBe('RUNNING');
    expect(session.runningAgent()).toBe(agent);
    session.finish({ exitCode: 0, signal: null });
    expect(session.status).toBe('STOPPED');
    expect(await kindOf(() => session.runningAgent())).toBe('failed_precondition');
    expect(types(session)).toEqual(['SESSION_STARTED', 'SESSION_STOPPED']);
  });

  it('a stop during start-up stops the agent once it is there, and says why', async () => {
    const { session, agent } = setup();
    let started!: () => void;
    session.startup.begin(
      new Promise((resolve) => {
        started = resolve;
      }),
    );
    const stopping = session.stop('stop_requested', false);
    expect(session.status).toBe('STOPPING');
    session.markRunning(agent);
    expect(session.status).toBe('STOPPING');
    agent.exited.then((exit) => session.finish(exit));
    started();
    await within('the stop', stopping);
    expect(agent.stops).toEqual([{ force: false, gracePeriodMs: 750 }]);
    expect(session.status).toBe('STOPPED');
    expect(session.ring.get(session.ring.lastSeq)).toMatchObject({
      type: 'SESSION_STOPPED',
      data: { reason: 'stop_requested', signal: 'SIGTERM' },
    });
  });

  it('joins a second graceful stop to the first and keeps the first reason', async () => {
    const { session, agent } = setup();
    session.markRunning(agent);
    agent.exited.then((exit) => session.finish(exit));
    const first = session.stop('idle_timeout', false);
    expect(session.stop('stop_requested', false)).toBe(first);
    await within('the stop', first);
    expect(agent.stops).toHaveLength(1);
    expect(session.ring.get(session.ring.lastSeq)?.data).toMatchObject({ reason: 'idle_timeout' });
  });

  it('fails on a non-zero exit with the stored (redacted) stderr as its tail, stamped by the clock', () => {
    const { clock, session, agent } = setup();
    session.markRunning(agent);
    agent.emit({ type: 'STDERR', stream: 'stderr', text: 'fatal: token=hunter2' });
    agent.emit({ type: 'STDERR', stream: 'stderr', text: 'abc', data: { continued: true } });
    agent.emit({ type: 'STDERR', stream: 'stderr', text: 'def' });
    clock.advance(5000);
    session.finish({ exitCode: 3, signal: null });
    expect(session.status).toBe('FAILED');
    expect(session.kept.endedAt).toBe(clock.now());
    expect(session.ring.get(session.ring.lastSeq)).toMatchObject({
      type: 'SESSION_FAILED',
      error: 'agent exited with code 3',
      data: {
        reason: 'crashed',
        exit_code: 3,
        stderr_tail: 'fatal: token=[REDACTED]\nabcdef\n',
      },
    });
  });

  it('keeps the last 4096 characters of stderr as the tail, from a line start', () => {
    const { session, agent } = setup();
    session.markRunning(agent);
    for (let i = 0; i < 100; i++) {
      agent.emit({ type: 'STDERR', stream: 'stderr', text: `${i} ${'e'.repeat(60)}` });
    }
    session.finish({ exitCode: 1, signal: null });
    const tail = session.ring.get(session.ring.lastSeq)?.data?.stderr_tail as string;
    expect(tail.length).toBeLessThanOrEqual(4096);
    expect(tail.length).toBeGreaterThan(4000);
    expect(tail.startsWith(`${100 - tail.split('\n').length + 1} `)).toBe(true);
    expect(tail.endsWith(`99 ${'e'.repeat(60)}\n`)).toBe(true);
  });

  it('ends once: a later exit, failure or spawn report records nothing', () => {
    const { session } = setup();
    session.fail('startup_timeout', { reason: 'startup_timeout' });
    session.fail('again', {});
    session.finish({ exitCode: 0, signal: null });
    session.markSpawned(7);
    expect(types(session)).toEqual(['SESSION_FAILED']);
    expect(session.snapshot()).toMatchObject({ status: 'FAILED', error: 'startup_timeout' });
  });
});

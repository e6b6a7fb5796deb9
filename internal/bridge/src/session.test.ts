import { describe, expect, it } from 'vitest';
import { FakeClock } from './testing/fake-clock.js';
import { FakeAgent } from './testing/fake-provider.js';
import { kindOf, newSession, within } from './testing/fixtures.js';

function setup() {
  const clock = new FakeClock();
  const session = newSession(clock, { stopGracePeriodMs: 750 });
  const agent = new FakeAgent(42, (ev) => session.append(ev), false);
  return { clock, session, agent };
}

const types = (s: ReturnType<typeof setup>['session']) =>
  s.ring.slice(s.ring.oldestSeq, 100).map((e) => e.type);

describe('Session', () => {
  it('runs once started, and refuses its agent to callers before and after', async () => {
    const { session, agent } = setup();
    expect(await kindOf(() => session.runningAgent())).toBe('failed_precondition');
    session.markSpawned(agent.pid);
    session.markRunning(agent);
    expect(session.status).toBe('RUNNING');
    expect(session.runningAgent()).toBe(agent);
    session.finish({ exitCode: 0, signal: null }, '');
    expect(session.status).toBe('STOPPED');
    expect(await kindOf(() => session.runningAgent())).toBe('failed_precondition');
    expect(types(session)).toEqual(['SESSION_STARTED', 'SESSION_STOPPED']);
  });

  it('a stop during start-up stops the agent once it is there, and says why', async () => {
    const { session, agent } = setup();
    let started!: () => void;
    session.started = new Promise((resolve) => {
      started = resolve;
    });
    const stopping = session.stop('stop_requested', false);
    expect(session.status).toBe('STOPPING');
    session.markRunning(agent);
    expect(session.status).toBe('STOPPING');
    agent.exited.then((exit) => session.finish(exit, ''));
    started();
    await within(stopping, 'the stop');
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
    agent.exited.then((exit) => session.finish(exit, ''));
    const first = session.stop('idle_timeout', false);
    expect(session.stop('stop_requested', false)).toBe(first);
    await within(first, 'the stop');
    expect(agent.stops).toHaveLength(1);
    expect(session.ring.get(session.ring.lastSeq)?.data).toMatchObject({ reason: 'idle_timeout' });
  });

  it('fails on a non-zero exit with the redacted stderr tail, stamped by the clock', () => {
    const { clock, session, agent } = setup();
    session.markRunning(agent);
    clock.advance(5000);
    session.finish({ exitCode: 3, signal: null }, 'token=hunter2');
    expect(session.status).toBe('FAILED');
    expect(session.stoppedAt).toBe(clock.now());
    expect(session.ring.get(session.ring.lastSeq)).toMatchObject({
      type: 'SESSION_FAILED',
      error: 'agent exited with code 3',
      data: { reason: 'crashed', exit_code: 3, stderr_tail: '[REDACTED]' },
    });
  });

  it('ends once: a later exit, failure or spawn report records nothing', () => {
    const { session } = setup();
    session.fail('startup_timeout', { reason: 'startup_timeout' });
    session.fail('again', {});
    session.finish({ exitCode: 0, signal: null }, '');
    session.markSpawned(7);
    expect(types(session)).toEqual(['SESSION_FAILED']);
    expect(session.snapshot()).toMatchObject({ status: 'FAILED', error: 'startup_timeout' });
  });
});

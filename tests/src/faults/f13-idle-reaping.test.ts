/**
 * F13: a session with no input, no output and no reader for
 * `sessions.idle_timeout` is reaped: it stops with an idle_timeout event
 * and its agent, with its whole process group, is gone.
 */

import {
  collect,
  isAlive,
  leftoverGroups,
  showGroups,
  useDaemon,
  waitFor,
  zombiesUnder,
} from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon({
  config: { sessions: { idle_timeout: '800ms' } },
  fakeProviders: { echo: ['echo'] },
});

describe('F13 an idle session', () => {
  it('F13 idle_timeout stops a session with no input, output or reader, saying why; its agent is gone', async () => {
    const s = await bridge.sessions().start('echo');
    const { pid } = await s.get();
    expect(isAlive(pid)).toBe(true);
    await waitFor(
      `session ${s.sessionId} to be reaped`,
      async () => (await s.get()).status === SessionStatus.SESSION_STATUS_STOPPED,
    );
    const { events } = await collect(bridge.stream({ sessionId: s.sessionId, afterSeq: 0n }));
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: EventType.EVENT_TYPE_SESSION_STOPPED,
      data: { reason: 'idle_timeout' },
    });
    expect(last?.text).toContain('idle timeout');
    expect(isAlive(pid)).toBe(false);
    expect(leftoverGroups([pid]).size, showGroups(leftoverGroups([pid]))).toBe(0);
    expect(zombiesUnder(bridge.daemon.pid)).toEqual([]);
  });
});

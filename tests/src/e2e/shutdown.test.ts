import { randomUUID } from 'node:crypto';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import {
  agentProcesses,
  codeOf,
  descendants,
  isAlive,
  status,
  useDaemon,
  waitFor,
  watchEvents,
  within,
} from '../harness/index.js';

describe('daemon shutdown', () => {
  const bridge = useDaemon({
    config: { sessions: { stop_grace_period: '1s' } },
    fakeProviders: { stubborn: ['ignore-term'], echo: ['echo'] },
  });

  it('on SIGTERM: streams get terminal events, children stop within the grace period, exit 0, nothing left behind', async () => {
    const { daemon } = bridge;
    const ids: string[] = [];
    for (const provider of ['stubborn', 'echo', 'mock']) {
      const sessionId = randomUUID();
      await bridge.call((c) => c.startSession, {
        projectId: 'alpha',
        sessionId,
        repoPath: daemon.repo,
        provider,
        agentOpts: {},
      });
      ids.push(sessionId);
    }
    // Three agents plus the stubborn one's grandchild (and the orphan watchdog, which must go too).
    await waitFor(
      'four agent processes under the daemon',
      () => agentProcesses(daemon.pid).length >= 4,
    );
    const children = descendants(daemon.pid);
    const streams = ids.map((sessionId) => watchEvents(bridge.stream({ sessionId, afterSeq: 0n })));
    // Each reader is attached once it has its first event.
    for (const s of streams) await s.until('the first event', (all) => all.length > 0);

    daemon.proc.kill('SIGTERM');
    for (const s of streams) {
      const r = await s.ended();
      expect(r.error).toBeUndefined();
      const last = r.events.at(-1)!;
      expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
      expect(last.data).toMatchObject({ reason: 'shutdown' });
    }
    const { code } = await within('the daemon to exit', daemon.exited, 20_000);
    expect(code).toBe(0);
    for (const pid of children) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(await codeOf(bridge.call((c) => c.health, {}, bridge.md, 2000))).toBe(
      status.UNAVAILABLE,
    );
  });
});

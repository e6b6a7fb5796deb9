/**
 * F9: SIGTERM to the daemon with 20 live sessions. New sessions are
 * refused with UNAVAILABLE while it shuts down (Health says not_serving), every open stream gets its terminal
 * event, agents get SIGTERM and then, if they ignore it, SIGKILL; the
 * daemon exits 0 and leaves no process group and no zombie behind.
 */

import {
  allProcs,
  codeOf,
  leftoverGroups,
  showEvents,
  showGroups,
  status,
  useDaemon,
  waitFor,
  watchEvents,
  within,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const SESSIONS = 20;
const STUBBORN = 2;

const bridge = useDaemon({
  config: {
    sessions: { stop_grace_period: '1s', max_per_project: SESSIONS, max_global: SESSIONS },
    providers: {
      // A light agent (a shell, then cat) for the bulk of the sessions.
      cat: { binary: '/bin/sh', args: ['-c', 'echo ready; exec cat'], ready_pattern: '^ready$' },
    },
  },
  fakeProviders: { stubborn: ['ignore-term'] },
});

const isTerminal = (e: SessionEvent) =>
  e.type === EventType.EVENT_TYPE_SESSION_STOPPED || e.type === EventType.EVENT_TYPE_SESSION_FAILED;

describe('F9 SIGTERM to the daemon', () => {
  it('F9 with 20 live sessions: new sessions UNAVAILABLE, terminal events (a resumable one left live), SIGTERM then SIGKILL, exit 0, nothing left', async () => {
    const { daemon } = bridge;
    const sessions = bridge.sessions();
    const started = [];
    for (let i = 0; i < SESSIONS; i++) {
      // The stubborn ones first, one structured (mock) agent, the rest light ones.
      const provider = i < STUBBORN ? 'stubborn' : i === STUBBORN ? 'mock' : 'cat';
      started.push(await sessions.start(provider));
    }
    const groups: number[] = [];
    for (const s of started) groups.push((await s.get()).pid);
    const streams = started.map((s) =>
      watchEvents(bridge.stream({ sessionId: s.sessionId, afterSeq: 0n })),
    );
    // Each reader is attached once it has its first event.
    for (const s of streams) await s.until('the first event', (all) => all.length > 0);
    daemon.proc.kill('SIGTERM');
    // The stubborn agents hold the shutdown for the grace period: a call
    // made once one of them has been sent SIGTERM meets a daemon shutting down.
    await streams[0]!.until('the stubborn agent to get SIGTERM', (all) =>
      all.some((e) => e.text === 'ignoring SIGTERM'),
    );
    expect(daemon.proc.exitCode).toBeNull();
    const late = sessions.start('cat');
    expect(await codeOf(late)).toBe(status.UNAVAILABLE);
    expect(await late.catch((e: Error) => e.message)).toContain('shutting down');
    // Health still answers, so a supervisor can see why.
    expect((await bridge.call((c) => c.health, {})).status).toBe('not_serving');

    for (const [i, s] of streams.entries()) {
      const r = await s.ended();
      if (i === STUBBORN) {
        // The mock agent can resume: on the durable store its session is left
        // live for the next start, no terminal event; its stream just ends.
        expect(r.error?.code).toBe(status.UNAVAILABLE);
        expect(r.events.some(isTerminal), showEvents(r.events)).toBe(false);
        continue;
      }
      expect(r.error).toBeUndefined();
      const last = r.events.at(-1)!;
      expect(isTerminal(last), `session ${i}: ${EventType[last.type]}`).toBe(true);
      expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
      expect(last.data).toMatchObject({ reason: 'shutdown' });
      if (i < STUBBORN) {
        // SIGTERM first (the agent said so), then the SIGKILL that ended it.
        const term = r.events.findIndex((e) => e.text === 'ignoring SIGTERM');
        expect(term).toBeGreaterThan(0);
        expect(r.events.indexOf(last)).toBeGreaterThan(term);
        expect(last.data).toMatchObject({ signal: 'SIGKILL' });
      }
    }
    const { code } = await within('the daemon to exit', daemon.exited, 20_000);
    expect(code).toBe(0);
    expect(leftoverGroups(groups).size, showGroups(leftoverGroups(groups))).toBe(0);
    // Reaped: none of the agents stayed behind as a zombie.
    const agents = new Set(groups);
    await waitFor(
      'no agent left as a zombie',
      () => !allProcs().some((p) => agents.has(p.pid) && p.state === 'Z'),
    );
    expect(await codeOf(bridge.call((c) => c.health, {}, bridge.md, 2000))).toBe(
      status.UNAVAILABLE,
    );
  });
});

/**
 * F15: the daemon runs out of file descriptors (`ulimit -n`). Starting
 * sessions then fails with RESOURCE_EXHAUSTED, never a crash, and once
 * sessions are stopped the daemon serves the next call again.
 */

import {
  daemonFromSource,
  isAlive,
  leftoverGroups,
  showGroups,
  status,
  useDaemon,
  waitFor,
  zombiesUnder,
} from '@agent-bridge/harness';
import { SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

// The descriptor limit of the daemon (`ulimit -n`). Started from source,
// the daemon needs about 30 descriptors once up, but its module loader
// (tsx) opens many files at once while it starts: 64 is not always enough
// for that, 128 is.
const LIMIT = 128;

const bridge = useDaemon({
  config: {
    sessions: { max_per_project: 1000, max_global: 1000 },
    // A light agent (a shell, then cat): many of them cost little.
    providers: {
      cat: { binary: '/bin/sh', args: ['-c', 'echo ready; exec cat'], ready_pattern: '^ready$' },
    },
  },
  command: (configPath) => ({
    file: '/bin/sh',
    // exec keeps the pid: the daemon is the shell's process, with the limit.
    args: [
      '-c',
      `ulimit -n ${LIMIT} && exec "$0" "$@"`,
      process.execPath,
      ...daemonFromSource(configPath),
    ],
  }),
});

describe('F15 a daemon out of file descriptors', () => {
  it('F15 refuses sessions with RESOURCE_EXHAUSTED, stays alive, and serves again once sessions stop', async () => {
    const { daemon } = bridge;
    const pid = daemon.pid;
    const sessions = bridge.sessions();
    const started: Awaited<ReturnType<typeof sessions.start>>[] = [];
    const groups: number[] = []; // each agent leads its own process group
    let refusal: { code: number; details: string } | undefined;
    // Each running agent holds three pipes in the daemon: fewer than LIMIT
    // sessions use up what is left after start-up.
    try {
      for (let i = 0; i < LIMIT && !refusal; i++) {
        try {
          const s = await sessions.start('cat');
          started.push(s);
          groups.push((await s.get()).pid);
        } catch (err) {
          refusal = err as { code: number; details: string };
        }
      }
      expect(refusal?.code, refusal?.details).toBe(status.RESOURCE_EXHAUSTED);
      // Out of descriptors either opening the repository or creating the agent's pipes.
      expect(refusal?.details).toMatch(/out of file descriptors \(EMFILE\)|too many open files/);
      expect(started.length).toBeGreaterThan(0);
      expect(daemon.pid).toBe(pid);
      expect(isAlive(pid)).toBe(true);
      expect(daemon.proc.exitCode).toBeNull();
      // What runs keeps running, and the daemon answers on its open connection.
      expect((await started[0]!.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
      expect((await bridge.call((c) => c.health, {})).status).toBe('serving');
    } finally {
      for (const s of started) await s.stop(true);
    }
    await waitFor(
      () => `the agents' groups to be gone (left: ${showGroups(leftoverGroups(groups))})`,
      () => leftoverGroups(groups).size === 0,
    );
    // With the descriptors back, the next session starts and runs.
    const next = await sessions.start('cat');
    expect(next.started.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await next.stop(true);
    expect(zombiesUnder(pid)).toEqual([]);
    expect(daemon.output()).not.toMatch(/uncaught|unhandled/i);
  });
});

/**
 * F4: the agent's binary is missing, or is there but not executable.
 * StartSession is FAILED_PRECONDITION naming it, nothing is left of the
 * session, Health shows the provider unavailable, and the daemon itself is
 * untouched: a stray signal to pid 0 or to the daemon's group (finding 4)
 * would have stopped it (SIGTERM: logged "signal received", then exit) or
 * killed it.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeOf, descendants, isAlive, status, useDaemon } from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';

const notExecutable = (scratch: string) => join(scratch, 'agent-cli');

const bridge = useDaemon((scratch) => {
  writeFileSync(notExecutable(scratch), '#!/bin/sh\necho ready\n', { mode: 0o644 });
  return {
    config: {
      providers: {
        missing: { binary: '/nonexistent/agent-cli' },
        noexec: { binary: notExecutable(scratch) },
      },
    },
  };
});

describe('F4 an agent binary that cannot run', () => {
  it.each([
    { provider: 'missing', binary: () => '/nonexistent/agent-cli' },
    { provider: 'noexec', binary: () => notExecutable(bridge.scratch) },
  ])(
    'F4 $provider: FAILED_PRECONDITION, unavailable in Health, no signal to the daemon',
    async ({ provider, binary }) => {
      const { daemon } = bridge;
      const pid = daemon.pid;
      const before = descendants(pid).length;
      const sessionId = randomUUID();
      const err = await bridge
        .call((c) => c.startSession, {
          projectId: 'alpha',
          sessionId,
          repoPath: daemon.repo,
          provider,
          agentOpts: {},
        })
        .then(
          () => undefined,
          (e: { code: number; details: string }) => e,
        );
      expect(err?.code).toBe(status.FAILED_PRECONDITION);
      expect(err?.details).toContain(binary());
      expect(await codeOf(bridge.call((c) => c.getSession, { sessionId }))).toBe(status.NOT_FOUND);
      const health = await bridge.call((c) => c.health, {});
      const shown = health.providers.find((p) => p.provider === provider);
      expect(shown?.available).toBe(false);
      expect(shown?.error).not.toBe('');
      expect(health.status).toBe('serving');
      expect(daemon.pid).toBe(pid);
      expect(isAlive(pid)).toBe(true);
      expect(daemon.proc.exitCode).toBeNull();
      expect(daemon.proc.signalCode).toBeNull();
      expect(daemon.output()).not.toContain('signal received');
      expect(descendants(pid).length).toBe(before);
    },
  );
});

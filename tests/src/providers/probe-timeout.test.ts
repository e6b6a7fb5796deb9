/**
 * Health probes that cannot hang: a provider whose CLI, asked anything
 * (--version, auth status), forks a grandchild that holds stdout open and
 * then hangs. Health, ListProviders and StartSession must answer within
 * probe_timeout, say "probe timed out", leave nothing of the probes
 * running, and probe again on the next call rather than repeat a cached
 * timeout.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderAuthState } from '@agent-bridge/proto';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import {
  codeOf,
  descendants,
  groupMembers,
  isAlive,
  status,
  useDaemon,
  waitFor,
} from '../harness/index.js';

const PROBE_MS = 1000;
/** The gRPC deadline of each call: the probe timeout and a margin for the call itself. */
const DEADLINE_MS = PROBE_MS + 1500;

let runs = '';
const bridge = useDaemon((scratch) => {
  runs = join(scratch, 'probe-runs');
  const cli = join(scratch, 'hanging-cli');
  // Logs "<its pid> <grandchild pid>" per run: each probe is its own group.
  writeFileSync(cli, `#!/bin/sh\nsleep 600 &\necho "$$ $!" >> ${runs}\nexec sleep 600\n`);
  chmodSync(cli, 0o755);
  return {
    config: {
      providers: {
        hanging: {
          adapter: 'claude',
          binary: cli,
          probe_timeout: `${PROBE_MS}ms`,
          health_ttl: '10m',
        },
      },
    },
  };
});

/** Every probe run so far: its process group id and its grandchild. */
const probeRuns = () =>
  (existsSync(runs) ? readFileSync(runs, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ').map(Number) as [number, number]);

/** Waits until nothing any probe started is left: no group member, no descendant of the daemon. */
async function probesGone(baseline: number): Promise<void> {
  await waitFor(
    () => `the probes' processes to be gone (${JSON.stringify(probeRuns())})`,
    () =>
      probeRuns().every(
        ([pgid, grandchild]) => groupMembers(pgid).length === 0 && !isAlive(grandchild),
      ) && descendants(bridge.daemon.pid).length <= baseline,
  );
}

const timedOut = `probe timed out after ${PROBE_MS}ms`;

describe('probe_timeout: a provider whose binary forks and hangs', () => {
  it('Health answers within the probe timeout, reports the provider unavailable, and leaves nothing running', async () => {
    const baseline = descendants(bridge.daemon.pid).length;
    const health = await bridge.call((c) => c.health, {}, bridge.md, DEADLINE_MS);
    expect(health.status).toBe('serving');
    const hanging = health.providers.find((p) => p.provider === 'hanging');
    expect(hanging).toMatchObject({ available: false });
    expect(hanging?.error).toContain(timedOut);
    // --version and the auth check each ran, each in its own group with a grandchild.
    expect(probeRuns().length).toBeGreaterThanOrEqual(2);
    await probesGone(baseline);
  });

  it('ListProviders answers within the probe timeout and probes again rather than repeat a cached timeout', async () => {
    const baseline = descendants(bridge.daemon.pid).length;
    const before = probeRuns().length;
    const list = await bridge.call((c) => c.listProviders, {}, bridge.md, DEADLINE_MS);
    const hanging = list.providers.find((p) => p.id === 'hanging');
    expect(hanging).toMatchObject({
      available: false,
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNKNOWN,
      authDetail: timedOut,
    });
    expect(hanging?.error).toContain(timedOut);
    expect(probeRuns().length).toBe(before + 2);
    await probesGone(baseline);
    // The mock next to it is unaffected.
    expect(list.providers.find((p) => p.id === 'mock')).toMatchObject({ available: true });
  });

  it('StartSession on it is FAILED_PRECONDITION within the probe timeout, and no agent is spawned', async () => {
    const baseline = descendants(bridge.daemon.pid).length;
    const before = probeRuns().length;
    const sessionId = randomUUID();
    const err = await bridge
      .call(
        (c) => c.startSession,
        {
          projectId: bridge.project,
          sessionId,
          repoPath: bridge.daemon.repo,
          provider: 'hanging',
          agentOpts: {},
        },
        bridge.md,
        DEADLINE_MS,
      )
      .then(
        () => undefined,
        (e: ServiceError) => e,
      );
    expect(err?.code).toBe(status.FAILED_PRECONDITION);
    expect(err?.details).toContain(timedOut);
    expect(await codeOf(bridge.call((c) => c.getSession, { sessionId }))).toBe(status.NOT_FOUND);
    // Only the probes ran (an agent would have logged a run too).
    expect(probeRuns().length).toBe(before + 2);
    await probesGone(baseline);
    expect(isAlive(bridge.daemon.pid)).toBe(true);
  });
});

/**
 * Health probes that cannot hang anything: a provider whose CLI, asked
 * anything (--version, auth status), forks a grandchild that holds stdout
 * open and then hangs. Health and ListProviders answer at once, saying
 * the probes are pending and were cut short at probe_timeout; each probe's
 * process group is gone after its budget; the probes are retried in the
 * background with nobody asking; and StartSession is not refused for a
 * probe that never answered: the agent is tried (and here fails its
 * start-up, as a hanging CLI does).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupMembers, isAlive, useDaemon, waitFor, within } from '@agent-bridge/harness';
import { ProbeState, ProviderAuthState, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const PROBE_MS = 500;

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
          startup_timeout: '1s',
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

const ended = ([pgid, grandchild]: [number, number]) =>
  groupMembers(pgid).length === 0 && !isAlive(grandchild);

const timedOut = `probe timed out after ${PROBE_MS}ms`;

describe('probe_timeout: a provider whose binary forks and hangs', () => {
  it('Health answers at once: available, pending, the probes cut short at their budget and retried', async () => {
    const health = await within(
      'Health',
      bridge.call((c) => c.health, {}),
      5000,
    );
    expect(health.status).toBe('serving');
    expect(health.providers.find((p) => p.provider === 'hanging')).toMatchObject({
      available: true,
      error: '',
      probeState: ProbeState.PROBE_STATE_PENDING,
    });
    let shown = '';
    await waitFor(
      () => `Health to say both probes were cut short (last: ${shown})`,
      async () => {
        const h = await bridge.call((c) => c.health, {});
        shown = h.providers.find((p) => p.provider === 'hanging')?.probeDetail ?? '';
        return shown.includes(`--version ${timedOut}`) && shown.includes(`auth check ${timedOut}`);
      },
    );
    // Retried with nobody asking: more runs come, and each ends at its budget.
    const seen = probeRuns().length;
    await waitFor('the probes to be retried', () => probeRuns().length >= seen + 2);
    await waitFor(
      () => `the cut-short probes to be gone (${JSON.stringify(probeRuns())})`,
      () => probeRuns().slice(0, seen).every(ended),
    );
  });

  it('ListProviders answers at once, the auth state unknown and why', async () => {
    const list = await within(
      'ListProviders',
      bridge.call((c) => c.listProviders, {}),
      5000,
    );
    const hanging = list.providers.find((p) => p.id === 'hanging');
    expect(hanging).toMatchObject({
      available: true,
      version: '',
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNKNOWN,
      probeState: ProbeState.PROBE_STATE_PENDING,
    });
    expect(hanging?.authDetail).toMatch(new RegExp(`^auth check ${timedOut} \\(.*\\); retrying$`));
    // The mock next to it is unaffected.
    expect(list.providers.find((p) => p.id === 'mock')).toMatchObject({
      available: true,
      probeState: ProbeState.PROBE_STATE_CURRENT,
    });
  });

  it('StartSession is not refused for a probe that never answered: the agent is tried', async () => {
    const sessionId = randomUUID();
    const started = await bridge.call((c) => c.startSession, {
      projectId: bridge.project,
      sessionId,
      repoPath: bridge.daemon.repo,
      provider: 'hanging',
      agentOpts: {},
    });
    // This CLI hangs as an agent too: its start-up times out, and says so.
    expect(started.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    expect(isAlive(bridge.daemon.pid)).toBe(true);
    // It stays readable, with the reason.
    const got = await bridge.call((c) => c.getSession, { sessionId });
    expect(got.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    expect(got.error).toContain('startup_timeout');
  });
});

/**
 * A slow or busy host never refuses a working agent. Health probes run in
 * the background and are never waited for: a CLI whose `--version` and
 * auth check outlast `probe_timeout` once they have answered keeps its
 * answers (stale) and its sessions start, fifty at once beside a CPU hog.
 * Only a definite failure refuses sessions: a binary replaced by one whose
 * `--version` fails (once the new file is probed), a binary deleted (at
 * once). And Health and ListProviders answer while start-ups are still
 * under way: nothing they do waits behind a start-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, renameSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeOf, REPO_ROOT, status, useDaemon, waitFor } from '@agent-bridge/harness';
import {
  ProbeState,
  ProviderAuthState,
  type ProviderHealth,
  type ProviderInfo,
  SessionStatus,
} from '@agent-bridge/proto';
import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';

const FAKE_CLAUDE = join(REPO_ROOT, 'tests/fixtures/fake-claude.mjs');
const FAKE_CODEX = join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs');
const SESSIONS = 50;
/** Generous: fifty agents start beside a CPU hog on two cores. */
const START_DEADLINE_MS = 120_000;

/** Files of the scratch directory each test steers its CLI with. */
const files = (scratch: string) => ({
  busy: join(scratch, 'busy-cli'),
  slow: join(scratch, 'busy-cli.slow'),
  runs: join(scratch, 'busy-cli.runs'),
  replaced: join(scratch, 'replaced-cli'),
  deleted: join(scratch, 'deleted-cli'),
  blocked: join(scratch, 'blocked-cli'),
  release: join(scratch, 'blocked-cli.release'),
  blockedHome: join(scratch, 'blocked-home'),
  blockedLog: join(scratch, 'blocked-startups.log'),
});

/**
 * A CLI in front of a fake one: its probes (`--version`, claude's `auth
 * status`, codex's `login status`) are logged, and hang while `hangWhile`
 * exists or until `hangUntil` does (a probe budget kills them); everything
 * else runs the fake. `failVersion` makes `--version` fail.
 */
function wrapper(
  path: string,
  fake: string,
  o: { hangWhile?: string; hangUntil?: string; runs?: string; failVersion?: boolean } = {},
): void {
  const tmp = `${path}.new`;
  writeFileSync(
    tmp,
    `#!/bin/sh
case "$1" in
  --version|auth|login)
    ${o.runs ? `echo "$1" >> ${o.runs}` : ':'}
    ${o.hangWhile ? `while [ -e ${o.hangWhile} ]; do sleep 0.05; done` : ''}
    ${o.hangUntil ? `until [ -e ${o.hangUntil} ]; do sleep 0.05; done` : ''}
    ${o.failVersion ? '[ "$1" = --version ] && { echo "error while loading shared libraries: libfoo.so.1" >&2; exit 127; }' : ''}
    ;;
esac
exec "${process.execPath}" ${fake} "$@"
`,
  );
  chmodSync(tmp, 0o755);
  // A new file, renamed over the old one: what an upgrade does.
  renameSync(tmp, path);
}

const bridge = useDaemon((scratch) => {
  const f = files(scratch);
  wrapper(f.busy, FAKE_CLAUDE, { hangWhile: f.slow, runs: f.runs });
  wrapper(f.replaced, FAKE_CLAUDE);
  wrapper(f.deleted, FAKE_CLAUDE);
  wrapper(f.blocked, FAKE_CODEX, { hangUntil: f.release });
  const claude = (binary: string) => ({
    adapter: 'claude',
    binary,
    env: { ANTHROPIC_API_KEY: 'sk-test' },
    probe_timeout: '500ms',
    health_ttl: '300ms',
  });
  return {
    config: {
      sessions: { max_per_project: SESSIONS + 10, max_global: SESSIONS + 10 },
      providers: {
        busy: { ...claude(f.busy), startup_timeout: '120s' },
        replaced: claude(f.replaced),
        deleted: claude(f.deleted),
        blocked: {
          adapter: 'codex',
          binary: f.blocked,
          startup_timeout: '120s',
          env: {
            CODEX_HOME: f.blockedHome,
            FAKE_START_WHEN: f.release,
            FAKE_STARTUP_LOG: f.blockedLog,
          },
        },
      },
    },
  };
});

const listed = async (id: string): Promise<ProviderInfo> => {
  const { providers } = await bridge.call((c) => c.listProviders, {});
  const p = providers.find((x) => x.id === id);
  if (!p) throw new Error(`provider ${id} not listed`);
  return p;
};

const healthOf = async (id: string): Promise<ProviderHealth> => {
  const { providers } = await bridge.call((c) => c.health, {});
  const p = providers.find((x) => x.provider === id);
  if (!p) throw new Error(`provider ${id} not in Health`);
  return p;
};

/** Waits until ListProviders shows `id` as `cond` says; the last answer. */
async function listedUntil(
  id: string,
  cond: (p: ProviderInfo) => boolean,
  what: string,
): Promise<ProviderInfo> {
  let last: ProviderInfo | undefined;
  await waitFor(
    () =>
      `${what} (last: ${JSON.stringify(last, (_k, v) => (typeof v === 'bigint' ? `${v}` : v))})`,
    async () => {
      last = await listed(id);
      return cond(last);
    },
    30_000,
  );
  return last!;
}

const startSession = (provider: string, sessionId = randomUUID()) =>
  bridge.call(
    (c) => c.startSession,
    { projectId: bridge.project, sessionId, repoPath: bridge.daemon.repo, provider, agentOpts: {} },
    bridge.md,
    START_DEADLINE_MS,
  );

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: ServiceError) => e,
  );

/** A process that spins one core until killed: the busy host. */
let hog: ChildProcess | undefined;
const startHog = () => {
  hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
};
afterAll(() => {
  hog?.kill('SIGKILL');
});

describe('a busy host never refuses a working agent', () => {
  it(`probes that outlast probe_timeout after their first answer: ${SESSIONS} StartSessions beside a CPU hog all start`, async () => {
    const f = files(bridge.scratch);
    const first = await listedUntil(
      'busy',
      (p) => p.probeState === ProbeState.PROBE_STATE_CURRENT,
      'the first probes to answer',
    );
    expect(first).toMatchObject({
      available: true,
      version: '2.1.197',
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
    });
    // From now on every probe hangs past its 500 ms budget, and the file
    // changes (a new mtime): --version must be asked again, and cannot answer.
    writeFileSync(f.slow, '');
    const later = new Date(Date.now() + 5000);
    utimesSync(f.busy, later, later);
    startHog();
    const cutShort = await listedUntil(
      'busy',
      (p) => p.probeDetail.includes('--version probe timed out after 500ms'),
      'the --version of the changed file to be cut short',
    );
    expect(cutShort).toMatchObject({
      available: true,
      error: '',
      probeState: ProbeState.PROBE_STATE_PENDING,
      // The auth answer from before is kept.
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
    });

    const started = await Promise.all(Array.from({ length: SESSIONS }, () => startSession('busy')));
    expect(started.map((s) => s.status)).toEqual(
      started.map(() => SessionStatus.SESSION_STATUS_RUNNING),
    );
    const health = await healthOf('busy');
    expect(health).toMatchObject({ available: true, error: '' });
    expect(health.probeState).not.toBe(ProbeState.PROBE_STATE_CURRENT);
    await Promise.all(
      started.map((s) =>
        bridge.call((c) => c.stopSession, { sessionId: s.sessionId, force: true }),
      ),
    );
    hog?.kill('SIGKILL');

    // Once the CLI answers again, the retries report the version of the new file.
    unlinkSync(f.slow);
    await listedUntil(
      'busy',
      (p) => p.probeState === ProbeState.PROBE_STATE_CURRENT && p.version === '2.1.197',
      'the retries to answer',
    );
  }, 240_000);

  it('a binary replaced by one whose --version fails is unavailable once the new file is probed', async () => {
    const f = files(bridge.scratch);
    await listedUntil('replaced', (p) => p.version === '2.1.197', 'the first version');
    wrapper(f.replaced, FAKE_CLAUDE, { failVersion: true });
    const broken = await listedUntil(
      'replaced',
      (p) => !p.available,
      'the new file to be found broken',
    );
    expect(broken.error).toBe(
      `"${f.replaced} --version" failed: error while loading shared libraries: libfoo.so.1`,
    );
    const sessionId = randomUUID();
    const err = await refusal(startSession('replaced', sessionId));
    expect(err?.code).toBe(status.FAILED_PRECONDITION);
    expect(err?.details).toBe(`provider "replaced" is unavailable: ${broken.error}`);
    expect(await codeOf(bridge.call((c) => c.getSession, { sessionId }))).toBe(status.NOT_FOUND);
    expect((await healthOf('replaced')).available).toBe(false);
  });

  it('a deleted binary is unavailable at once', async () => {
    const f = files(bridge.scratch);
    await listedUntil('deleted', (p) => p.version === '2.1.197', 'the first version');
    unlinkSync(f.deleted);
    // No wait for a probe: the look at the binary every call takes sees it gone.
    const sessionId = randomUUID();
    const err = await refusal(startSession('deleted', sessionId));
    expect(err?.code).toBe(status.FAILED_PRECONDITION);
    expect(err?.details).toBe(`provider "deleted" is unavailable: binary "${f.deleted}" not found`);
    expect(await codeOf(bridge.call((c) => c.getSession, { sessionId }))).toBe(status.NOT_FOUND);
    expect(await healthOf('deleted')).toMatchObject({
      available: false,
      error: `binary "${f.deleted}" not found`,
    });
  });

  it('Health and ListProviders answer while start-ups and probes are still under way', async () => {
    const f = files(bridge.scratch);
    // The agents' start-ups, and the --version probe, wait for `release`.
    const ids = Array.from({ length: 4 }, () => randomUUID());
    const starts = ids.map((id) => startSession('blocked', id));
    await waitFor('the first start-up to begin', () => existsSync(f.blockedLog));
    const [list, health] = await Promise.all([listed('blocked'), healthOf('blocked')]);
    // They answered with no start-up done: every session is still starting.
    for (const sessionId of ids) {
      expect((await bridge.call((c) => c.getSession, { sessionId })).status).toBe(
        SessionStatus.SESSION_STATUS_STARTING,
      );
    }
    expect(list).toMatchObject({ available: true, probeState: ProbeState.PROBE_STATE_PENDING });
    expect(health).toMatchObject({ available: true, probeState: ProbeState.PROBE_STATE_PENDING });
    writeFileSync(f.release, '');
    const started = await Promise.all(starts);
    expect(started.map((s) => s.status)).toEqual(
      ids.map(() => SessionStatus.SESSION_STATUS_RUNNING),
    );
    await Promise.all(
      ids.map((sessionId) => bridge.call((c) => c.stopSession, { sessionId, force: true })),
    );
  });
});

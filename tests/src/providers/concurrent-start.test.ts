import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

// Sessions of one agent CLI that share its home, started at the same moment.
// The fakes initialise their state in a fresh home as the real CLIs do, and
// a second process starting meanwhile fails the way codex and opencode fail
// (sqlite state, "database is locked"); the daemon lets the first start-up
// in a home run alone, so every session starts, and once the home is
// initialised the others start side by side, none spending its
// startup_timeout while it waits.

const FAKE_CODEX = join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs');
const FAKE_OPENCODE = join(REPO_ROOT, 'tests/fixtures/fake-opencode.mjs');
const SESSIONS = 3;
/** Sessions started together where their start-ups must run side by side. */
const MANY = 8;
/** Long enough that starts spawned together always overlap the first one's initialisation. */
const INIT = { FAKE_STATE_INIT_MS: '500' };

/** The state directories, one fresh one per provider, under the daemon's scratch directory. */
const homes = (scratch: string) => ({
  codex: join(scratch, 'codex-home'),
  opencode: join(scratch, 'opencode-data'),
  codexAgain: join(scratch, 'codex-home-2'),
  slow: join(scratch, 'codex-home-slow'),
  parallel: join(scratch, 'codex-home-parallel'),
  parallelLog: join(scratch, 'parallel-startups.log'),
  offClock: join(scratch, 'codex-home-off-clock'),
});

const bridge = useDaemon((scratch) => {
  const h = homes(scratch);
  const codex = { adapter: 'codex', binary: FAKE_CODEX };
  return {
    config: {
      sessions: { max_per_project: 20, max_global: 20 },
      providers: {
        codex: { ...codex, env: { ...INIT, CODEX_HOME: h.codex } },
        // Two providers running the same CLI in the same home share its start-ups too.
        codex_a: { ...codex, env: { ...INIT, CODEX_HOME: h.codexAgain } },
        codex_b: { ...codex, permissions: 'allow', env: { ...INIT, CODEX_HOME: h.codexAgain } },
        // Its first start takes long enough to stop a second one while it waits.
        codex_slow: { ...codex, env: { FAKE_STATE_INIT_MS: '3000', CODEX_HOME: h.slow } },
        // Every start-up takes 2 s: one after another, eight would need 16,
        // far beyond the budget of each; side by side they fit.
        codex_parallel: {
          ...codex,
          startup_timeout: '6s',
          env: {
            ...INIT,
            FAKE_STARTUP_MS: '2000',
            FAKE_STARTUP_LOG: h.parallelLog,
            CODEX_HOME: h.parallel,
          },
        },
        // The first start-up takes 4 s of a 6 s budget; the second, 3 s of
        // its own after waiting for the first: 7 s if the wait counted.
        codex_off_clock: {
          ...codex,
          startup_timeout: '6s',
          env: { FAKE_STATE_INIT_MS: '1000', FAKE_STARTUP_MS: '3000', CODEX_HOME: h.offClock },
        },
        opencode: {
          adapter: 'acp',
          binary: FAKE_OPENCODE,
          args: ['acp'],
          env: { ...INIT, XDG_DATA_HOME: h.opencode },
        },
      },
    },
  };
});

/** Starts `providers` at once; the status each StartSession answered with. */
async function startTogether(providers: string[]): Promise<SessionStatus[]> {
  const sessions = bridge.sessions();
  const started = await Promise.all(providers.map((p) => sessions.start(p)));
  await Promise.all(started.map((s) => s.stop()));
  return started.map((s) => s.started.status);
}

describe('sessions that share a home, started at the same moment', () => {
  it('the fakes fail a concurrent first start in a fresh home, as the real CLIs do', async () => {
    const home = join(bridge.scratch, 'unguarded-codex-home');
    mkdirSync(home);
    const runs = [0, 1].map(() => {
      const child = spawn(process.execPath, [FAKE_CODEX, 'app-server'], {
        env: { PATH: process.env.PATH ?? '', CODEX_HOME: home, FAKE_STATE_INIT_MS: '2000' },
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const exited = once(child, 'exit').then(([code]) => code as number);
      return { child, exited, stderr: () => stderr };
    });
    // One of them initialises the home; the other fails meanwhile. Then the first is ended.
    const failed = await Promise.race(runs.map((r) => r.exited.then(() => r)));
    const other = runs.find((r) => r !== failed)!;
    other.child.stdin?.end();
    expect(await failed.exited).toBe(1);
    expect(failed.stderr()).toContain(`failed to initialize sqlite state runtime under ${home}`);
    expect(await other.exited).toBe(0);
  });

  it('a session stopped while it waits for another start-up ends at once, without its agent', async () => {
    const sessions = bridge.sessions();
    const first = sessions.start('codex_slow');
    await waitFor('the first start-up to spawn its agent', () =>
      existsSync(join(homes(bridge.scratch).slow, 'state.sqlite.init')),
    );
    const secondId = randomUUID();
    const second = bridge.call((c) => c.startSession, {
      projectId: bridge.project,
      sessionId: secondId,
      repoPath: bridge.daemon.repo,
      provider: 'codex_slow',
      agentOpts: {},
    });
    await waitFor('the second session to exist', async () => {
      const got = await bridge.call((c) => c.getSession, { sessionId: secondId }).catch(() => null);
      return got?.status === SessionStatus.SESSION_STATUS_STARTING;
    });
    const stopped = await bridge.call((c) => c.stopSession, { sessionId: secondId, force: false });
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    expect((await second).status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    // It never spawned: its only event is the terminal one. The first is not disturbed.
    const events = await sessions.session(secondId).events();
    expect(events.map((e) => [e.type, e.data?.reason])).toEqual([
      [EventType.EVENT_TYPE_SESSION_STOPPED, 'stop_requested'],
    ]);
    const running = await first;
    expect(running.started.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await running.stop();
  });

  it(`${MANY} sessions in a fresh home: the first starts alone, the others side by side within their budget`, async () => {
    const all = Array.from({ length: MANY }, () => 'codex_parallel');
    expect(await startTogether(all)).toEqual(all.map(() => SessionStatus.SESSION_STATUS_RUNNING));
    // The log of start-ups: the first alone, begun and ready before any
    // other began; then the other seven all begun before any is ready.
    const log = readFileSync(homes(bridge.scratch).parallelLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[0]);
    expect(log).toEqual([
      'begin',
      'ready',
      ...Array.from({ length: MANY - 1 }, () => 'begin'),
      ...Array.from({ length: MANY - 1 }, () => 'ready'),
    ]);
  });

  it('a session waiting for the first start-up in its home does not spend its startup_timeout', async () => {
    const all = ['codex_off_clock', 'codex_off_clock'];
    expect(await startTogether(all)).toEqual(all.map(() => SessionStatus.SESSION_STATUS_RUNNING));
  });

  it.each([
    ['codex', ['codex']],
    ['opencode (ACP)', ['opencode']],
    ['two providers of one CLI in one home', ['codex_a', 'codex_b']],
  ])('%s: every session starts', async (_name, providers) => {
    const all = Array.from({ length: SESSIONS }, (_, i) => providers[i % providers.length]!);
    expect(await startTogether(all)).toEqual(all.map(() => SessionStatus.SESSION_STATUS_RUNNING));
  });
});

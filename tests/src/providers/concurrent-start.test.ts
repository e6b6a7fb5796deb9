import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, useDaemon, waitFor } from '../harness/index.js';

// Sessions of one agent CLI that share its home, started at the same moment.
// The fakes initialise their state in a fresh home as the real CLIs do, and
// a second process starting meanwhile fails the way codex and opencode fail
// (sqlite state, "database is locked"); the daemon lets one start-up in a
// home run at a time, so every session starts.

const FAKE_CODEX = join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs');
const FAKE_OPENCODE = join(REPO_ROOT, 'tests/fixtures/fake-opencode.mjs');
const SESSIONS = 3;
/** Long enough that starts spawned together always overlap the first one's initialisation. */
const INIT = { FAKE_STATE_INIT_MS: '500' };

/** The state directories, one fresh one per provider, under the daemon's scratch directory. */
const homes = (scratch: string) => ({
  codex: join(scratch, 'codex-home'),
  opencode: join(scratch, 'opencode-data'),
  codexAgain: join(scratch, 'codex-home-2'),
  slow: join(scratch, 'codex-home-slow'),
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

  it.each([
    ['codex', ['codex']],
    ['opencode (ACP)', ['opencode']],
    ['two providers of one CLI in one home', ['codex_a', 'codex_b']],
  ])('%s: every session starts', async (_name, providers) => {
    const all = Array.from({ length: SESSIONS }, (_, i) => providers[i % providers.length]!);
    expect(await startTogether(all)).toEqual(all.map(() => SessionStatus.SESSION_STATUS_RUNNING));
  });
});

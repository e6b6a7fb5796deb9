/**
 * R3, check-then-use: a directory inside the allowed root is swapped, as
 * fast as a separate process can, for a symlink to a directory outside the
 * root, back, and removed, while StartSession is asked to run in it again
 * and again. Every attempt must be refused as outside or unusable, or run
 * its agent in a directory inside the root: never outside, never INTERNAL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  captureOutput,
  collect,
  descendants,
  isAlive,
  status,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { beforeAll, describe, expect, it } from 'vitest';
import { outcome } from './helpers.js';

const ATTEMPTS = 200;
/** StartSession calls in flight at once. */
const PARALLEL = 8;

const bridge = useDaemon({
  config: { sessions: { max_per_project: 100, max_global: 100 } },
  fakeProviders: { where: ['cwd'] },
});

/**
 * Cycles `swap` through: a directory inside the root → missing → a symlink
 * to `outside` → missing → the directory again, and every fourth round
 * removes the directory and makes a new one. Renames are atomic, so each
 * state is whole; each lasts up to HOLD_MS (random), about the time from a
 * check to a spawn, so that every state is met and many change in between.
 * Runs until killed.
 */
const SWAPPER = `
const fs = require('node:fs');
const [swap, stageDir, stageLink, holdMs] = process.argv.slice(1);
const nap = new Int32Array(new SharedArrayBuffer(4));
const hold = () => Atomics.wait(nap, 0, 0, Math.random() * Number(holdMs));
console.log('swapping');
for (let round = 0; ; round++) {
  fs.renameSync(swap, stageDir); hold();
  fs.renameSync(stageLink, swap); hold();
  fs.renameSync(swap, stageLink); hold();
  fs.renameSync(stageDir, swap); hold();
  if (round % 4 === 3) { fs.rmdirSync(swap); hold(); fs.mkdirSync(swap); hold(); }
}
`;
const HOLD_MS = 4;

let repos: string;
let swap: string;

const start = (repoPath: string, sessionId = randomUUID()) =>
  bridge.call((c) => c.startSession, {
    projectId: bridge.project,
    sessionId,
    repoPath,
    provider: 'where',
    agentOpts: {},
  });

async function startAndStop(repoPath: string): Promise<void> {
  const sessionId = randomUUID();
  await start(repoPath, sessionId);
  await bridge.call((c) => c.stopSession, { sessionId, force: true });
}

beforeAll(async () => {
  repos = join(bridge.daemon.dir, 'repos');
  swap = join(repos, 'swap');
  mkdirSync(swap);
  mkdirSync(join(bridge.daemon.dir, 'outside'));
  symlinkSync(join(bridge.daemon.dir, 'outside'), join(repos, '.stage-link'));
  // One session and one refusal first, so that what the daemon opens lazily
  // on first use is in the descriptor baselines below.
  await startAndStop(swap);
  await outcome(start(join(repos, 'missing')));
});

/** The daemon's open descriptors. */
const daemonFds = () => readdirSync(`/proc/${bridge.daemon.pid}/fd`).length;

/** What each of the daemon's descriptors is, for a failure message. */
const fdLinks = () =>
  readdirSync(`/proc/${bridge.daemon.pid}/fd`)
    .map((fd) => {
      try {
        return readlinkSync(`/proc/${bridge.daemon.pid}/fd/${fd}`);
      } catch {
        return '?';
      }
    })
    .join(', ');

/** Waits until the daemon holds no more descriptors than `baseline`. */
const fdsBackTo = (baseline: number) =>
  waitFor(
    () => `the daemon's descriptors back to ${baseline} (now ${daemonFds()}: ${fdLinks()})`,
    () => daemonFds() <= baseline,
  );

/** Inside the allowed root, as a path the kernel reports (a removed directory keeps its last name). */
const insideRoot = (p: string) => p.replace(/ \(deleted\)$/, '').startsWith(`${repos}/`);

async function startSwapper(): Promise<{ proc: ChildProcess; stop(): Promise<void> }> {
  const proc = spawn(
    process.execPath,
    ['-e', SWAPPER, swap, join(repos, '.stage-dir'), join(repos, '.stage-link'), String(HOLD_MS)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await captureOutput(proc).waitFor('the swapper to start', /swapping/, 10_000);
  return {
    proc,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await within('the swapper to exit', exited, 10_000);
    },
  };
}

type Attempt =
  | { kind: 'refused'; code: number; details: string }
  | { kind: 'started'; sessionId: string; cwd: string; reported: string; repoPath: string };

async function attempt(): Promise<Attempt> {
  const sessionId = randomUUID();
  const r = await outcome(start(swap, sessionId));
  if (r.code !== 'ok') return { kind: 'refused', code: r.code, details: r.details };
  const got = await bridge.call((c) => c.getSession, { sessionId });
  // Read while the agent runs: the kernel's view of where it is.
  const cwd = readlinkSync(`/proc/${got.pid}/cwd`);
  const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }), (e) =>
    e.text.startsWith('cwd '),
  );
  const reported = events.at(-1)!.text.slice('cwd '.length);
  await bridge.call((c) => c.stopSession, { sessionId, force: true });
  return { kind: 'started', sessionId, cwd, reported, repoPath: got.repoPath };
}

describe('R3 repo_path swapped for a symlink while sessions start (check-then-use race)', () => {
  it(`R3 ${ATTEMPTS} starts against a concurrent swapper: refused (FAILED_PRECONDITION or PERMISSION_DENIED) or running inside the root`, async () => {
    const baseline = descendants(bridge.daemon.pid).length;
    const fds = daemonFds();
    const swapper = await startSwapper();
    const results: Attempt[] = [];
    try {
      let next = 0;
      const worker = async () => {
        while (next < ATTEMPTS) {
          next++;
          results.push(await attempt());
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      // The swapper ran all along; had it died, the race was not exercised.
      expect(isAlive(swapper.proc.pid as number)).toBe(true);
    } finally {
      await swapper.stop();
    }

    expect(results).toHaveLength(ATTEMPTS);
    const refused = results.filter((r) => r.kind === 'refused');
    const started = results.filter((r) => r.kind === 'started');
    for (const r of refused) {
      expect([status.FAILED_PRECONDITION, status.PERMISSION_DENIED], r.details).toContain(r.code);
      expect(r.details).toMatch(/repo_path/);
    }
    for (const s of started) {
      expect(insideRoot(s.cwd), `agent of ${s.sessionId} ran in ${s.cwd}`).toBe(true);
      expect(insideRoot(s.reported), `agent of ${s.sessionId} said ${s.reported}`).toBe(true);
      expect(insideRoot(s.repoPath), `session ${s.sessionId} in ${s.repoPath}`).toBe(true);
    }
    // Both sides of the race were met: agents ran, and the symlink was seen and refused.
    expect(started.length).toBeGreaterThan(0);
    expect(refused.filter((r) => r.code === status.PERMISSION_DENIED).length).toBeGreaterThan(0);

    // Every agent was stopped and the daemon is unharmed.
    await waitFor(
      () => `agents gone (left: ${descendants(bridge.daemon.pid).length - baseline})`,
      () => descendants(bridge.daemon.pid).length === baseline,
    );
    expect(isAlive(bridge.daemon.pid)).toBe(true);
    const health = await bridge.call((c) => c.health, {});
    expect(health.status).toBe('serving');
    // No directory is left open by any start, whichever way it went.
    await fdsBackTo(fds);
  });

  it('R3/R4 no descriptor is left open by starts refused for every reason, or by sessions started and stopped', async () => {
    const dir = join(repos, 'fd-check');
    mkdirSync(dir);
    writeFileSync(join(repos, 'fd-check-file'), 'x');
    symlinkSync(join(bridge.daemon.dir, 'outside'), join(repos, 'fd-check-out'));
    const refusals: [string, number][] = [
      [join(repos, 'fd-check-missing'), status.FAILED_PRECONDITION],
      [join(repos, 'fd-check-file'), status.FAILED_PRECONDITION],
      [join(repos, 'fd-check-out'), status.PERMISSION_DENIED],
      [join(bridge.daemon.dir, 'outside'), status.PERMISSION_DENIED],
    ];
    const fds = daemonFds();

    for (let round = 0; round < 25; round++) {
      for (const [repoPath, code] of refusals) {
        expect((await outcome(start(repoPath))).code).toBe(code);
      }
      await startAndStop(dir);
    }
    await fdsBackTo(fds);
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Bridge,
  groupMembers,
  isAlive,
  startBridge,
  waitFor,
  watchdogOf,
  within,
} from '@agent-bridge/harness';
import { afterEach, describe, expect, it } from 'vitest';

// F10: the daemon dies by SIGKILL (no handler runs). Its agents, their
// grandchildren and the orphan watchdog must all be gone soon after; and
// when the watchdog died too, the next daemon on the same state directory
// ends what was left, never touching a process whose pid merely matches.

const AGENT_DEATH_MS = 5000;

/** Processes this file started itself, killed after each test whatever happened. */
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
});

/** SIGKILLs `pid`, or its whole group when `group` is set; never pid 0, 1 or below. */
function killQuietly(pid: number | undefined, group = false): void {
  if (pid === undefined || pid <= 1) return;
  try {
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Starts `n` sessions of the `ignore-term` fake agent; returns each agent's pid and its grandchild's. */
async function startStubborn(bridge: Bridge, n: number) {
  const agents: { agent: number; grandchild: number }[] = [];
  for (let i = 0; i < n; i++) {
    const s = await bridge.sessions().start('stubborn');
    const events = await s.events((all) => all.some((e) => /^grandchild \d+$/.test(e.text)));
    const grandchild = Number(
      /^grandchild (\d+)$/.exec(events.find((e) => e.text.startsWith('grandchild'))!.text)![1],
    );
    const agent = (await s.get()).pid;
    expect(agent).toBeGreaterThan(1);
    cleanups.push(() => killQuietly(agent, true));
    agents.push({ agent, grandchild });
  }
  for (const { agent, grandchild } of agents) {
    // Each agent leads its own group, its grandchild in it: the group is what must die.
    expect(groupMembers(agent)).toEqual(expect.arrayContaining([agent, grandchild]));
  }
  return agents;
}

/** Waits until none of `pids` and no member of the groups `groups` is alive. */
async function allGone(what: string, pids: number[], groups: number[], timeoutMs: number) {
  const left = () => [
    ...pids.filter(isAlive),
    ...groups.flatMap((g) => groupMembers(g).map((p) => `${p} (group ${g})`)),
  ];
  await waitFor(
    () => `${what}; still alive: ${left().join(', ')}`,
    () => left().length === 0,
    timeoutMs,
  );
}

function sleeper(): ChildProcess {
  const p = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
  });
  cleanups.push(() => killQuietly(p.pid));
  return p;
}

/** Fields of /proc/<pid>/stat, counted after the command name. */
function statFields(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pgrp: Number(rest[2]), session: Number(rest[3]), startTime: rest[19]! };
}

const stubborn = {
  fakeProviders: { stubborn: ['ignore-term'] },
};

describe('F10: no orphaned agents after a daemon crash', () => {
  it('SIGKILL of the daemon: within 5 s every agent, grandchild and group member is gone, and the watchdog too', async () => {
    const bridge = await startBridge({
      ...stubborn,
      config: { sessions: { max_per_project: 10, max_global: 10 } },
    });
    try {
      const watchdog = watchdogOf(bridge.daemon.pid);
      expect(watchdog, 'the orphan watchdog under the daemon').toBeDefined();
      cleanups.push(() => killQuietly(watchdog));
      const agents = await startStubborn(bridge, 10);
      const pids = agents.flatMap((a) => [a.agent, a.grandchild]);
      for (const pid of pids) expect(isAlive(pid), `pid ${pid} before the crash`).toBe(true);

      // Out of reach of what a terminal sends the daemon's group, and deaf to it anyway:
      // had these ended it, nothing would replace it before the daemon's SIGKILL.
      expect(statFields(watchdog!).pgrp).toBe(watchdog);
      expect(statFields(watchdog!).session).not.toBe(statFields(bridge.daemon.pid).session);
      for (const sig of ['SIGHUP', 'SIGINT', 'SIGTERM'] as const) process.kill(watchdog!, sig);

      bridge.daemon.proc.kill('SIGKILL');
      await within('the daemon to die of SIGKILL', bridge.daemon.exited, 10_000);
      await allGone(
        'every agent and grandchild to die with the daemon',
        [...pids, watchdog!],
        agents.map((a) => a.agent),
        AGENT_DEATH_MS,
      );
      const line = /the daemon is gone: ended (\d+) process group\(s\) of its agents: ([\d, ]+)"/;
      // Written after its last kill, to the stderr it shares with the daemon.
      await waitFor("the watchdog's log line", () => line.test(bridge.daemon.output()));
      const said = line.exec(bridge.daemon.output());
      expect(said?.[1]).toBe('10');
      expect(said?.[2]?.split(', ').map(Number).sort()).toEqual(agents.map((a) => a.agent).sort());
      expect(bridge.daemon.output()).not.toMatch(/orphan watchdog .*starting a new one/);
    } finally {
      await bridge.close();
    }
  });

  it('a watchdog that dies while the daemon lives is replaced, told the live groups, and still ends them', async () => {
    const bridge = await startBridge(stubborn);
    try {
      const first = watchdogOf(bridge.daemon.pid);
      expect(first, 'the orphan watchdog under the daemon').toBeDefined();
      const agents = await startStubborn(bridge, 2);
      process.kill(first!, 'SIGKILL');
      await waitFor('a new watchdog under the daemon', () => {
        const now = watchdogOf(bridge.daemon.pid);
        return now !== undefined && now !== first;
      });
      const second = watchdogOf(bridge.daemon.pid)!;
      cleanups.push(() => killQuietly(second));
      expect(bridge.daemon.output()).toMatch(
        /the orphan watchdog killed by SIGKILL: starting a new one/,
      );

      bridge.daemon.proc.kill('SIGKILL');
      await within('the daemon to die of SIGKILL', bridge.daemon.exited, 10_000);
      await allGone(
        'the replacement watchdog to end the groups it was told of',
        [...agents.flatMap((a) => [a.agent, a.grandchild]), second],
        agents.map((a) => a.agent),
        AGENT_DEATH_MS,
      );
    } finally {
      await bridge.close();
    }
  });

  it('daemon and watchdog both SIGKILLed: the next daemon on the state directory ends the survivors and says so; a reused pid survives', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'bridge-f10-state-'));
    cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
    const config = { sessions: { state_dir: stateDir } };
    const first = await startBridge({ ...stubborn, config });
    let agents: { agent: number; grandchild: number }[];
    try {
      const watchdog = watchdogOf(first.daemon.pid);
      expect(watchdog, 'the orphan watchdog under the daemon').toBeDefined();
      cleanups.push(() => killQuietly(watchdog));
      agents = await startStubborn(first, 3);
      // The record follows spawns within its delay: wait until it names them all.
      const record = join(stateDir, `groups-${first.daemon.pid}.jsonl`);
      await waitFor('the process group record to name the three agents', () =>
        agents.every((a) => readFileSync(record, 'utf8').includes(`"pgid":${a.agent},`)),
      );
      // Stopped first, so it cannot act on the daemon's death before it dies itself.
      process.kill(watchdog!, 'SIGSTOP');
      first.daemon.proc.kill('SIGKILL');
      await within('the daemon to die of SIGKILL', first.daemon.exited, 10_000);
      process.kill(watchdog!, 'SIGKILL');
      await waitFor('the watchdog to die of SIGKILL', () => !isAlive(watchdog!));
    } finally {
      await first.close();
    }
    const pids = agents.flatMap((a) => [a.agent, a.grandchild]);
    // Nothing guards them now: this is what the next daemon has to clean up.
    for (const pid of pids) expect(isAlive(pid), `pid ${pid} survived both`).toBe(true);

    // A record of a daemon that is gone naming a live process of ours with
    // another start time: its pid was "reused", so it must be left alone.
    const decoy = sleeper();
    await once(decoy, 'spawn');
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const decoyRecord = join(stateDir, `groups-${gone.pid}.jsonl`);
    writeFileSync(
      decoyRecord,
      [
        JSON.stringify({ daemon: gone.pid, start: '1', boot: bootId }),
        JSON.stringify({
          pgid: decoy.pid,
          start: String(Number(statFields(decoy.pid!).startTime) + 1),
        }),
        '{"pgid": "not a number"',
        '',
      ].join('\n'),
    );

    const second = await startBridge({ ...stubborn, config });
    try {
      await allGone(
        'the second daemon to end the groups the first left',
        pids,
        agents.map((a) => a.agent),
        AGENT_DEATH_MS,
      );
      const log = second.daemon.output();
      expect(log).toMatch(
        new RegExp(
          `ended 3 process group\\(s\\) left by daemon ${first.daemon.pid}, which is gone: ${agents.map((a) => a.agent).join(', ')}`,
        ),
      );
      expect(log).toMatch(/ignoring line 3 of the process group record .*groups-\d+\.jsonl/);
      expect(isAlive(decoy.pid!), 'the process whose start time does not match').toBe(true);
      expect(groupMembers(decoy.pid!)).toEqual([decoy.pid]);
      // Both dead daemons' records (and the first's tool directory) are dropped; the live one has its own.
      expect(readdirSync(stateDir).sort()).toEqual([
        `groups-${second.daemon.pid}.jsonl`,
        `tools-${second.daemon.pid}`,
      ]);

      // A third daemon sharing the directory leaves the live second one's agents alone.
      const [live] = await startStubborn(second, 1);
      const third = await startBridge({ ...stubborn, config });
      try {
        expect(third.daemon.output()).not.toMatch(/ended \d+ process group/);
        expect(isAlive(live!.agent) && isAlive(live!.grandchild)).toBe(true);
      } finally {
        await third.close();
      }
    } finally {
      await second.close();
    }
  }, 60_000);
});

/**
 * F17: a session store the daemon must not use. A second daemon on the
 * store of a running one refuses to start (exit 1, a message naming the
 * store and what to do) and the first serves on, its sessions untouched.
 * A store whose data file was truncated or emptied is refused (exit 2,
 * which the unit does not restart on), never read (a read past a
 * truncated end would stop the daemon with SIGBUS) and never taken for an
 * empty store (a silent wipe).
 */
import { spawn } from 'node:child_process';
import { rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import {
  daemonFromSource,
  REPO_ROOT,
  startBridge,
  type TestDaemon,
  within,
} from '@agent-bridge/harness';
import { SessionStatus } from '@agent-bridge/proto';
import { afterEach, describe, expect, it } from 'vitest';

const daemons: TestDaemon[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) {
    if (d.proc.exitCode === null) await d.stop();
    rmSync(d.dir, { recursive: true, force: true });
  }
});

/** Runs the daemon on `dir`'s config until it exits by itself; its exit code and output. */
async function runToExit(dir: string): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, daemonFromSource(join(dir, 'bridge.yaml')), {
    cwd: REPO_ROOT,
    env: { ...process.env, BRIDGE_READY_FD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (b: Buffer) => {
    output += b.toString();
  });
  proc.stderr.on('data', (b: Buffer) => {
    output += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  try {
    const code = await within('the daemon to refuse to start', exited, 30_000);
    return { code, output };
  } finally {
    proc.kill('SIGKILL');
  }
}

describe('F17 a store the daemon must not use', () => {
  it('F17 a second daemon on a running daemon`s store refuses to start; the first serves on', async () => {
    const first = await startBridge({ fakeProviders: { echo: ['echo'] } });
    daemons.push(first.daemon);
    const s = await first.sessions().start('echo');
    await s.send('one');
    const { code, output } = await runToExit(first.daemon.dir);
    expect(code).toBe(1);
    expect(output).toContain(
      `the session store ${join(first.daemon.dir, 'store')} is in use by another daemon (one daemon per store: give each its own storage.path)`,
    );
    expect(output).not.toContain('BRIDGE_READY');
    expect((await s.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await s.send('two');
    expect((await first.call((c) => c.health, {})).status).toBe('serving');
    first.client.close();
  });

  it.each([
    { damage: 'truncated', to: (size: number) => Math.floor(size / 2) },
    { damage: 'emptied', to: () => 0 },
  ])('F17 a $damage data file is refused with exit 2 and what to do', async ({ to }) => {
    const before = await startBridge({ fakeProviders: { echo: ['echo'] } });
    daemons.push(before.daemon);
    const s = await before.sessions().start('echo');
    for (let i = 0; i < 50; i++) await s.send(`line ${i} ${'x'.repeat(2000)}`);
    before.client.close();
    expect(await before.daemon.stop({ keepDir: true })).toBe(0);
    const file = join(before.daemon.dir, 'store', 'data.mdb');
    truncateSync(file, to(statSync(file).size));
    const { code, output } = await runToExit(before.daemon.dir);
    expect(code).toBe(2);
    expect(output).toMatch(
      new RegExp(
        `the session store ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(.+\\); move it aside to start with an empty store, or restore it from a backup`,
      ),
    );
    expect(output).not.toContain('BRIDGE_READY');
  });
});

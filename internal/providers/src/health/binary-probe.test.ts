import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, within } from '@agent-bridge/waits';
import { afterAll, describe, expect, it } from 'vitest';
import { running } from '../testing/processes.js';
import { type ProbeOutput, probeOutput } from './binary-probe.js';

const dir = mkdtempSync(join(tmpdir(), 'binary-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let scripts = 0;
/** A shell script as a fake binary; `$PIDS` is a file it may write its pids to. */
function fake(body: string): { path: string; pids: () => number[] } {
  const path = join(dir, `fake-${++scripts}`);
  const pidFile = `${path}.pids`;
  writeFileSync(path, `#!/bin/sh\nPIDS=${pidFile}\n${body}\n`);
  chmodSync(path, 0o755);
  return {
    path,
    pids: () =>
      existsSync(pidFile)
        ? readFileSync(pidFile, 'utf8').split(/\s+/).filter(Boolean).map(Number)
        : [],
  };
}

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const noDeadline = () => new AbortController().signal;

describe('probeOutput', () => {
  it('returns what a binary that prints and exits printed', async () => {
    const bin = fake('echo "tool 1.2.3"; echo "a warning" >&2');
    expect(await probeOutput(bin.path, ['--version'], { env, deadline: noDeadline() })).toEqual({
      ok: true,
      output: 'tool 1.2.3\na warning',
      timedOut: false,
    });
  });

  it('waits for a slow binary that answers before the deadline', async () => {
    const bin = fake('sleep 0.3; echo done');
    const r = await probeOutput(bin.path, [], { env, deadline: AbortSignal.timeout(10_000) });
    expect(r).toEqual({ ok: true, output: 'done', timedOut: false });
  });

  it('a non-zero exit is not ok, and says what it printed', async () => {
    const bin = fake('echo "unknown option" >&2; exit 2');
    expect(await probeOutput(bin.path, [], { env, deadline: noDeadline() })).toEqual({
      ok: false,
      output: 'unknown option',
      timedOut: false,
    });
  });

  it('a binary that cannot be run is not ok', async () => {
    const r = await probeOutput(join(dir, 'missing'), [], { env, deadline: noDeadline() });
    expect(r).toMatchObject({
      ok: false,
      timedOut: false,
      errno: 'ENOENT',
      output: expect.stringMatching(/ENOENT/),
    });
  });

  it('names a signal from elsewhere that ended it', async () => {
    const bin = fake('echo half; kill -SEGV $$');
    expect(await probeOutput(bin.path, [], { env, deadline: noDeadline() })).toEqual({
      ok: false,
      output: 'half',
      timedOut: false,
      signal: 'SIGSEGV',
    });
  });

  it('at the deadline kills the whole group, a grandchild holding stdout included, and answers at once', async () => {
    const bin = fake('sleep 600 & echo "$$ $!" > $PIDS; sleep 600');
    const deadline = new AbortController();
    const probe = probeOutput(bin.path, [], { env, deadline: deadline.signal });
    await waitFor('the probe and its grandchild to start', () => bin.pids().length === 2);
    const [leader, grandchild] = bin.pids() as [number, number];
    expect(running(leader) && running(grandchild)).toBe(true);
    deadline.abort();
    // Within: an answer that waited for the grandchild's 600 s would fail here.
    const r: ProbeOutput = await within('the probe to answer', probe);
    expect(r).toEqual({ ok: false, output: '', timedOut: true });
    await waitFor('the probe group to be gone', () => !running(leader) && !running(grandchild));
  });

  it('kills a binary that ignores SIGTERM at the deadline, and keeps what it printed before', async () => {
    const bin = fake(`trap '' TERM; echo partial; echo $$ > $PIDS; while :; do sleep 1; done`);
    const r = await within(
      'the probe to answer',
      probeOutput(bin.path, [], { env, deadline: AbortSignal.timeout(1000) }),
    );
    expect(r).toEqual({ ok: false, output: 'partial', timedOut: true });
    const [leader] = bin.pids() as [number];
    await waitFor('the probe to be gone', () => !running(leader));
  });

  it('answers when the binary exits, not when a grandchild it left behind lets go of stdout', async () => {
    const bin = fake('sleep 600 & echo $! > $PIDS; echo "tool 2.0.0"; exit 0');
    const r = await within(
      'the probe to answer',
      probeOutput(bin.path, ['--version'], { env, deadline: noDeadline() }),
    );
    expect(r).toEqual({ ok: true, output: 'tool 2.0.0', timedOut: false });
    const [grandchild] = bin.pids() as [number];
    await waitFor('the left-behind grandchild to be gone', () => !running(grandchild));
  });

  it('does not start when the deadline has already passed', async () => {
    const bin = fake('echo $$ > $PIDS');
    const deadline = AbortSignal.abort();
    expect(await probeOutput(bin.path, [], { env, deadline })).toEqual({
      ok: false,
      output: '',
      timedOut: true,
    });
    expect(bin.pids()).toEqual([]);
  });
});

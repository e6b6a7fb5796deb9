import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { waitFor, within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { SpawnError } from '../contract/errors.js';
import { OutputGate } from '../contract/output-gate.js';
import { SupervisedProcess } from './supervised-process.js';

const base = {
  cwd: tmpdir(),
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  onStdoutLine: () => undefined,
  onStderrLine: () => undefined,
};

describe('SupervisedProcess.spawn', () => {
  it('refuses an argv too large for exec (E2BIG) instead of waiting for a spawn that never comes', async () => {
    // Linux caps one argument at 128 KiB; Node throws E2BIG synchronously.
    const err = await SupervisedProcess.spawn({
      ...base,
      file: '/bin/echo',
      args: ['x'.repeat(200_000)],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SpawnError);
    expect((err as SpawnError).code).toBe('E2BIG');
    expect((err as Error).message).toMatch(/too large \(E2BIG\)/);
  });

  it('refuses a missing binary with ENOENT', async () => {
    const err = await SupervisedProcess.spawn({
      ...base,
      file: '/nonexistent/agent',
      args: [],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SpawnError);
    expect((err as SpawnError).code).toBe('ENOENT');
  });
});

/**
 * Whether `pid` sleeps blocked on a write to its full stdout: Node gives a
 * child a socket pair (sock_alloc_send_pskb), a pipe elsewhere (pipe_write).
 */
const blockedWriting = (pid: number) =>
  /^sock_alloc_send|pipe_write$/.test(readFileSync(`/proc/${pid}/wchan`, 'utf8'));

/** A shell printing `n` numbered lines of about 60 bytes. */
const printing = (n: number) => [
  '-c',
  `i=0; while [ $i -lt ${n} ]; do echo "line $i ................................................"; i=$((i+1)); done`,
];

describe('SupervisedProcess output gate', () => {
  it('reads nothing while the gate is closed (the agent blocks on its full stdout), everything once it opens', async () => {
    const gate = new OutputGate();
    gate.close();
    const lines: string[] = [];
    const proc = await SupervisedProcess.spawn({
      ...base,
      file: '/bin/sh',
      args: printing(5000), // about 300 KB: far more than a pipe holds
      onStdoutLine: (text) => lines.push(text),
      outputGate: gate,
    });
    await waitFor('the shell to block on its full stdout', () => blockedWriting(proc.pid));
    expect(lines).toEqual([]);
    gate.reopen();
    const exit = await within('the shell to exit', proc.exited, 20_000);
    expect(exit.exitCode).toBe(0);
    expect(lines).toHaveLength(5000);
    expect(lines.at(-1)).toMatch(/^line 4999 /);
  });

  it('reads what is left in the pipes at exit, even with the gate closed', async () => {
    const gate = new OutputGate();
    gate.close();
    const lines: string[] = [];
    const proc = await SupervisedProcess.spawn({
      ...base,
      file: '/bin/sh',
      args: printing(100), // about 6 KB: fits in the pipe, so the shell exits
      onStdoutLine: (text) => lines.push(text),
      outputGate: gate,
    });
    const exit = await within('the shell to exit', proc.exited, 20_000);
    expect(exit.exitCode).toBe(0);
    expect(lines).toHaveLength(100);
  });
});

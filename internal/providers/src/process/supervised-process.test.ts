import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SpawnError } from '../contract/errors.js';
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

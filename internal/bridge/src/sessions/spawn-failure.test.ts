import { SpawnError } from '@agent-bridge/providers';
import { describe, expect, it } from 'vitest';
import { spawnFailure } from './spawn-failure.js';

describe('spawnFailure', () => {
  it.each(['EMFILE', 'ENFILE'])(
    'a daemon out of descriptors (%s) is resource_exhausted, saying so',
    (code) => {
      const err = spawnFailure(new SpawnError('too many open files', code));
      expect(err.kind).toBe('resource_exhausted');
      expect(err.reason).toBe('too_many_open_files');
      expect(err.message).toContain(`out of file descriptors (${code})`);
    },
  );

  it.each([
    ['ENOENT', 'binary "/x" not found'],
    ['EACCES', 'binary "/x" is not executable'],
    [undefined, 'could not start /x: no process id'],
  ])('a binary that cannot run (%s) is failed_precondition with its message', (code, message) => {
    const err = spawnFailure(new SpawnError(message, code));
    expect(err.kind).toBe('failed_precondition');
    expect(err.reason).toBe('spawn_failed');
    expect(err.message).toBe(message);
  });
});

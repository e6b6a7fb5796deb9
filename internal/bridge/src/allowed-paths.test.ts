import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AllowedPaths } from './allowed-paths.js';
import { BridgeError } from './errors.js';

const root = mkdtempSync(join(tmpdir(), 'allowed-'));
mkdirSync(join(root, 'home/alice/repos/app'), { recursive: true });
mkdirSync(join(root, 'home/alice/reposevil'), { recursive: true });
mkdirSync(join(root, 'outside'), { recursive: true });
writeFileSync(join(root, 'home/alice/repos/file.txt'), 'x');
symlinkSync(join(root, 'outside'), join(root, 'home/alice/repos/escape'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const policy = new AllowedPaths([join(root, 'home/*/repos')]);

async function kind(p: string): Promise<string> {
  try {
    await policy.resolve(p);
    return 'ok';
  } catch (err) {
    return (err as BridgeError).kind;
  }
}

describe('AllowedPaths', () => {
  it('allows the root and paths inside it', async () => {
    expect(await kind(join(root, 'home/alice/repos'))).toBe('ok');
    expect(await kind(join(root, 'home/alice/repos/app'))).toBe('ok');
    expect(await kind(`${join(root, 'home/alice/repos/app')}/`)).toBe('ok');
  });

  it('does not prefix-match across a segment boundary', async () => {
    expect(await kind(join(root, 'home/alice/reposevil'))).toBe('permission_denied');
  });

  it('refuses a symlink that leaves the allowed root', async () => {
    expect(await kind(join(root, 'home/alice/repos/escape'))).toBe('permission_denied');
  });

  it('rejects malformed paths as invalid arguments', async () => {
    expect(await kind('repos/x')).toBe('invalid_argument');
    expect(await kind('')).toBe('invalid_argument');
    expect(await kind(`${root}/home/alice/repos/\0x`)).toBe('invalid_argument');
    expect(await kind(`${root}/home/alice/repos/../../../etc`)).toBe('invalid_argument');
    expect(await kind(`/${root}/home/alice/repos`)).toBe('invalid_argument');
    expect(await kind(`${root}/home/alice/repos/./app`)).toBe('invalid_argument');
  });

  it('reports a missing path or a file as a failed precondition', async () => {
    expect(await kind(join(root, 'home/alice/repos/missing'))).toBe('failed_precondition');
    expect(await kind(join(root, 'home/alice/repos/file.txt'))).toBe('failed_precondition');
  });

  it('refuses a missing path outside the roots exactly like an existing one (no existence oracle)', async () => {
    expect(await kind(join(root, 'outside'))).toBe('permission_denied');
    expect(await kind(join(root, 'outside/missing'))).toBe('permission_denied');
    expect(await kind(join(root, 'nope/deeper/still'))).toBe('permission_denied');
    expect(await kind('/no-such-root-dir/x')).toBe('permission_denied');
    // Through a symlink that leaves the root, a missing child is outside too.
    expect(await kind(join(root, 'home/alice/repos/escape/missing'))).toBe('permission_denied');
    // Missing but inside an allowed root (by pattern): the caller may know that.
    expect(await kind(join(root, 'home/carol/repos/new'))).toBe('failed_precondition');
  });

  it('matches "*" within one segment only', () => {
    expect(policy.allows(join(root, 'home/bob/repos/x'))).toBe(true);
    expect(policy.allows(join(root, 'home/bob/deep/repos'))).toBe(false);
    expect(policy.allows(join(root, 'home'))).toBe(false);
  });

  it('allows nothing when no paths are configured', async () => {
    const none = new AllowedPaths([]);
    await expect(none.resolve(join(root, 'home/alice/repos'))).rejects.toBeInstanceOf(BridgeError);
  });
});

import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../errors.js';
import { AllowedPaths } from './allowed-paths.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'allowed-')));
mkdirSync(join(root, 'home/alice/repos/app'), { recursive: true });
mkdirSync(join(root, 'home/alice/reposevil'), { recursive: true });
mkdirSync(join(root, 'outside'), { recursive: true });
writeFileSync(join(root, 'home/alice/repos/file.txt'), 'x');
symlinkSync(join(root, 'outside'), join(root, 'home/alice/repos/escape'));
symlinkSync(join(root, 'home/alice/repos/app'), join(root, 'home/alice/repos/inner'));
symlinkSync(join(root, 'home/alice/repos/loop'), join(root, 'home/alice/repos/loop'));
symlinkSync(join(root, 'outside/missing'), join(root, 'home/alice/repos/dangling-out'));
symlinkSync('missing', join(root, 'home/alice/repos/dangling-in'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const policy = new AllowedPaths([join(root, 'home/*/repos')]);

const openFds = () => readdirSync('/proc/self/fd').length;

/** The outcome of opening `p`: "ok" (closed again at once) or the refusal's kind. */
async function kind(p: string, paths = policy): Promise<string> {
  return (await refusal(p, paths))?.kind ?? 'ok';
}

/** The refusal opening `p` meets, or undefined when it opens (it is closed again at once). */
async function refusal(p: string, paths = policy): Promise<BridgeError | undefined> {
  try {
    await (await paths.open(p)).close();
    return undefined;
  } catch (err) {
    if (err instanceof BridgeError) return err;
    throw err;
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

  it('reports a missing path or a file as a failed precondition, with its reason code', async () => {
    const reasons = async (p: string) => {
      const e = await refusal(join(root, p));
      return [e?.kind, e?.reason];
    };
    expect(await reasons('home/alice/repos/missing')).toEqual([
      'failed_precondition',
      'path_missing',
    ]);
    expect(await reasons('home/alice/repos/loop')).toEqual(['failed_precondition', 'path_missing']);
    expect(await reasons('home/alice/repos/file.txt')).toEqual([
      'failed_precondition',
      'path_not_directory',
    ]);
    expect(await reasons('home/alice/repos/file.txt/x')).toEqual([
      'failed_precondition',
      'path_not_directory',
    ]);
    expect(await reasons('outside')).toEqual(['permission_denied', 'path_not_allowed']);
  });

  it('hands out the directory the kernel opened: its real path and a link to spawn in', async () => {
    const before = openFds();
    const dir = await policy.open(join(root, 'home/alice/repos/inner'));
    expect(dir.path).toBe(join(root, 'home/alice/repos/app'));
    expect(readlinkSync(dir.cwd)).toBe(dir.path);
    await dir.close();
    expect(openFds()).toBe(before);
  });

  it('leaves no descriptor open when it refuses', async () => {
    const before = openFds();
    for (const p of ['outside', 'home/alice/repos/escape', 'home/alice/repos/file.txt']) {
      expect(await kind(join(root, p))).not.toBe('ok');
    }
    expect(openFds()).toBe(before);
  });

  it('quotes repo_path cut short in its messages', async () => {
    const long = join(root, 'outside', 'x'.repeat(300));
    const e = await refusal(long);
    expect(e?.kind).toBe('permission_denied');
    expect(e?.message).not.toContain('x'.repeat(100));
    expect(e?.message.length).toBeLessThan(200);
  });

  it('without an fd table (not Linux) refuses every start, still without an existence oracle', async () => {
    const blind = new AllowedPaths([join(root, 'home/*/repos')], join(root, 'no-fd-table'));
    const inside = await refusal(join(root, 'home/alice/repos/app'), blind);
    expect([inside?.kind, inside?.reason]).toEqual([
      'failed_precondition',
      'path_pinning_unsupported',
    ]);
    expect(await kind(join(root, 'outside'), blind)).toBe('permission_denied');
    expect(await kind(join(root, 'home/alice/repos/missing'), blind)).toBe('failed_precondition');
  });

  it('refuses a missing path outside the roots exactly like an existing one (no existence oracle)', async () => {
    expect(await kind(join(root, 'outside'))).toBe('permission_denied');
    expect(await kind(join(root, 'outside/missing'))).toBe('permission_denied');
    expect(await kind(join(root, 'nope/deeper/still'))).toBe('permission_denied');
    expect(await kind('/no-such-root-dir/x')).toBe('permission_denied');
    // Through a symlink that leaves the root, a missing child is outside too.
    expect(await kind(join(root, 'home/alice/repos/escape/missing'))).toBe('permission_denied');
    // A dangling symlink is followed as opening it would be.
    expect(await kind(join(root, 'home/alice/repos/dangling-out'))).toBe('permission_denied');
    expect(await kind(join(root, 'home/alice/repos/dangling-out/deeper'))).toBe(
      'permission_denied',
    );
    expect(await kind(join(root, 'home/alice/repos/dangling-in'))).toBe('failed_precondition');
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
    await expect(none.open(join(root, 'home/alice/repos'))).rejects.toBeInstanceOf(BridgeError);
  });
});

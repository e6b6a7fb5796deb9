import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canPin, type PinResult, pinDirectory } from './pinned-directory.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'pinned-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const openFds = () => readdirSync('/proc/self/fd').length;

/** The working directory a child spawned with `cwd` really gets, as the kernel and the child see it. */
function childCwd(cwd: string): { kernel: string; own: string } {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      'console.log(JSON.stringify([require("fs").readlinkSync("/proc/self/cwd"), process.cwd()]))',
    ],
    { cwd, encoding: 'utf8' },
  );
  const [kernel, own] = JSON.parse(out) as [string, string];
  return { kernel, own };
}

function pinned(r: PinResult) {
  if (!r.ok) throw new Error(`not pinned: ${r.failure} (${r.detail})`);
  return r.dir;
}

describe('pinDirectory', () => {
  it('reports the opened directory as the kernel names it, and a /proc/self/fd link to spawn in', async () => {
    const dir = join(root, 'plain');
    mkdirSync(dir);
    const before = openFds();
    const d = pinned(await pinDirectory(dir));
    expect(d.path).toBe(dir);
    expect(d.cwd).toMatch(/^\/proc\/self\/fd\/\d+$/);
    expect(readlinkSync(d.cwd)).toBe(dir);
    expect(childCwd(d.cwd)).toEqual({ kernel: dir, own: dir });
    await d.close();
    await d.close(); // a second close is harmless
    expect(openFds()).toBe(before);
  });

  it('follows symlinks as chdir would: the target is what gets pinned', async () => {
    const target = join(root, 'target');
    mkdirSync(target);
    symlinkSync(target, join(root, 'link'));
    const d = pinned(await pinDirectory(join(root, 'link')));
    expect(d.path).toBe(target);
    await d.close();
  });

  // The race the pin exists for: the path is swapped after the check. The
  // child must still land in the directory that was opened.
  it('a child spawned in cwd lands in the opened directory after the path was swapped for a symlink', async () => {
    const approved = join(root, 'approved');
    const outside = join(root, 'outside-dir');
    mkdirSync(approved);
    mkdirSync(outside);
    const d = pinned(await pinDirectory(approved));
    renameSync(approved, join(root, 'approved-moved'));
    symlinkSync(outside, approved);
    const moved = join(root, 'approved-moved');
    expect(readlinkSync(d.cwd)).toBe(moved);
    expect(childCwd(d.cwd)).toEqual({ kernel: moved, own: moved });
    // And when the path is gone altogether.
    rmSync(approved);
    expect(childCwd(d.cwd).kernel).toBe(moved);
    await d.close();
  });

  it.each([
    ['a missing path', () => join(root, 'nope'), 'missing'],
    ['a dangling symlink', () => link('dangling', join(root, 'nowhere')), 'missing'],
    ['a symlink loop', () => link('loop', join(root, 'loop')), 'missing'],
    ['a file', () => file('a-file'), 'not_directory'],
    ['a path through a file', () => join(file('b-file'), 'x'), 'not_directory'],
    ['a FIFO (without blocking)', () => fifo('a-fifo'), 'not_directory'],
  ])('%s: %s, and no descriptor is left open', async (_name, path, failure) => {
    const p = path();
    const before = openFds();
    const r = await pinDirectory(p);
    expect(r).toMatchObject({ ok: false, failure });
    expect(openFds()).toBe(before);
  });

  it('a directory removed after it was opened (reached through its magic link) is missing', async () => {
    const dir = join(root, 'doomed');
    mkdirSync(dir);
    const held = await open(dir, 'r');
    try {
      rmdirSync(dir);
      const r = await pinDirectory(`/proc/self/fd/${held.fd}`);
      expect(r).toMatchObject({ ok: false, failure: 'missing' });
    } finally {
      await held.close();
    }
  });

  it('without an fd table (not Linux, no /proc) nothing can be pinned, and nothing stays open', async () => {
    const before = openFds();
    const r = await pinDirectory(root, join(root, 'no-fd-table'));
    expect(r).toMatchObject({ ok: false, failure: 'unsupported' });
    expect(openFds()).toBe(before);
    expect(canPin(join(root, 'no-fd-table'))).toBe(false);
    expect(canPin()).toBe(true);
  });

  it('a directory the kernel names by no absolute path is unreachable', async () => {
    // A stand-in fd table whose every entry reads like a directory outside
    // this process's root (the kernel's names are then not absolute).
    const table = join(root, 'fake-fd');
    mkdirSync(table);
    for (let fd = 0; fd < 1024; fd++) symlinkSync('elsewhere/dir', join(table, String(fd)));
    const r = await pinDirectory(root, table);
    expect(r).toMatchObject({ ok: false, failure: 'unreachable' });
  });
});

function link(name: string, target: string): string {
  const p = join(root, name);
  symlinkSync(target, p);
  return p;
}

function file(name: string): string {
  const p = join(root, name);
  writeFileSync(p, 'x');
  return p;
}

function fifo(name: string): string {
  const p = join(root, name);
  execFileSync('mkfifo', [p]);
  return p;
}

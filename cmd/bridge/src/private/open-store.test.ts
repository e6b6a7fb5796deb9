import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BridgeConfig } from '@agent-bridge/config';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultStorePath, openStore, StoreOpenError, storePathOf } from './open-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'open-store-'));
  dirs.push(d);
  return d;
};
const configWith = (storage: Partial<BridgeConfig['storage']>) =>
  ({ storage: { backend: 'embedded', path: '', sync: true, ...storage } }) as BridgeConfig;

describe('defaultStorePath', () => {
  it('is the unit`s state directory, else the XDG state directory, else ~/.local/state', () => {
    expect(defaultStorePath({ STATE_DIRECTORY: '/var/lib/agent-bridge:/var/lib/x' }, '/h')).toBe(
      '/var/lib/agent-bridge/store',
    );
    expect(defaultStorePath({ XDG_STATE_HOME: '/h/state' }, '/h')).toBe(
      '/h/state/agent-bridge/store',
    );
    expect(defaultStorePath({ XDG_STATE_HOME: '' }, '/h')).toBe(
      '/h/.local/state/agent-bridge/store',
    );
  });

  it('gives way to storage.path, and bridge dev keeps it in its directory', () => {
    expect(storePathOf(configWith({ path: '/srv/store' }), undefined)).toBe('/srv/store');
    const dev = { files: { dir: '/d' }, listen: '' } as Parameters<typeof storePathOf>[1];
    expect(storePathOf(configWith({}), dev)).toBe('/d/state/store');
  });
});

describe('openStore', () => {
  it('memory: nothing durable, a new history each time', async () => {
    const a = await openStore(configWith({ backend: 'memory' }), undefined);
    const b = await openStore(configWith({ backend: 'memory' }), undefined);
    expect(a.store.durable).toBe(false);
    expect(a.path).toBeUndefined();
    expect(a.store.historyId).not.toBe(b.store.historyId);
  });

  it('embedded: the same history when opened again, refused while open, refused when damaged', async () => {
    const path = join(tempDir(), 'store');
    const first = await openStore(configWith({ path }), undefined);
    expect(first.store.durable).toBe(true);
    const locked = await openStore(configWith({ path }), undefined).catch((e: unknown) => e);
    expect(locked).toBeInstanceOf(StoreOpenError);
    expect(locked).toMatchObject({ exitCode: 1 });
    expect((locked as Error).message).toContain('is in use by another daemon');
    await first.close();
    const again = await openStore(configWith({ path }), undefined);
    expect(again.store.historyId).toBe(first.store.historyId);
    await again.close();
    writeFileSync(join(path, 'data.mdb'), '');
    const damaged = await openStore(configWith({ path }), undefined).catch((e: unknown) => e);
    expect(damaged).toMatchObject({ exitCode: 2 });
    expect((damaged as Error).message).toMatch(/is damaged \(it is empty\); move it aside/);
  });

  it('embedded: a path that cannot be a directory names storage.path', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    const err = await openStore(configWith({ path: join(file, 'store') }), undefined).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ exitCode: 1 });
    expect((err as Error).message).toMatch(
      new RegExp(`^cannot open the session store ${file}/store \\(storage.path\\): ENOTDIR`),
    );
  });
});

import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommitSink } from '@agent-bridge/bridge';
import { waitFor } from '@agent-bridge/waits';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbStore } from './lmdb-store.js';
import { StoreLockedError } from './private/path-lock.js';
import { StoreDamagedError } from './private/truncation-check.js';

const dirs: string[] = [];
const open: LmdbStore[] = [];

function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'bridge-store-'));
  dirs.push(d);
  return d;
}

async function openStore(path: string): Promise<LmdbStore> {
  const s = await LmdbStore.open({ path });
  open.push(s);
  return s;
}

/** A sink that records what it hears. */
function recordingSink(): CommitSink & { committedUpTo: number; errors: Error[] } {
  const sink = {
    committedUpTo: 0,
    errors: [] as Error[],
    committed(seq: number) {
      if (seq < sink.committedUpTo) throw new Error(`commit ${seq} after ${sink.committedUpTo}`);
      sink.committedUpTo = seq;
    },
    failed(err: Error) {
      sink.errors.push(err);
    },
  };
  return sink;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('LmdbStore', () => {
  it('commits appends after the fact, in order, and keeps them and its history across a reopen', async () => {
    const path = newDir();
    const store = await openStore(path);
    const sink = recordingSink();
    const log = store.eventLog('s1', sink);
    for (let seq = 1; seq <= 100; seq++) log.append(seq, new Uint8Array([seq, 0, 0, seq]));
    expect(sink.committedUpTo).toBe(0);
    await waitFor('the commit of seq 100', () => sink.committedUpTo === 100);
    const history = store.historyId;
    await store.close();
    open.length = 0;
    const again = await openStore(path);
    expect(again.historyId).toBe(history);
    const kept = [...again.storedEvents('s1')];
    expect(kept.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect([...kept[41]!.bytes]).toEqual([42, 0, 0, 42]);
    expect([...again.storedEvents('s2')]).toEqual([]);
  });

  it('a new store has a new history', async () => {
    const a = await openStore(newDir());
    const b = await openStore(newDir());
    expect(a.historyId).not.toBe(b.historyId);
  });

  it('drops what the ring let go of', async () => {
    const store = await openStore(newDir());
    const sink = recordingSink();
    const log = store.eventLog('s1', sink);
    for (let seq = 1; seq <= 10; seq++) log.append(seq, new Uint8Array([seq]));
    log.dropBefore(7);
    await waitFor('the commit', () => sink.committedUpTo === 10);
    expect([...store.storedEvents('s1')].map((e) => e.seq)).toEqual([7, 8, 9, 10]);
  });

  it('refuses a path another daemon holds, and frees it when closed', async () => {
    const path = newDir();
    const first = await openStore(path);
    await expect(LmdbStore.open({ path })).rejects.toThrow(StoreLockedError);
    await expect(LmdbStore.open({ path })).rejects.toThrow(/in use by another daemon/);
    await first.close();
    open.length = 0;
    await openStore(path);
  });

  it('refuses a truncated data file before reading it, and an emptied one', async () => {
    const path = newDir();
    const store = await openStore(path);
    const sink = recordingSink();
    const log = store.eventLog('s1', sink);
    for (let seq = 1; seq <= 2000; seq++) log.append(seq, new Uint8Array(200).fill(seq % 251));
    await waitFor('the commit', () => sink.committedUpTo === 2000);
    await store.close();
    open.length = 0;
    const file = join(path, 'data.mdb');
    truncateSync(file, Math.floor(statSync(file).size / 2));
    await expect(LmdbStore.open({ path })).rejects.toThrow(StoreDamagedError);
    await expect(LmdbStore.open({ path })).rejects.toThrow(/is damaged .*move it aside/);
    writeFileSync(file, '');
    await expect(LmdbStore.open({ path })).rejects.toThrow(/is damaged \(it is empty\)/);
  });
});

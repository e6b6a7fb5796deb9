import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommitSink, SessionRecord } from '@agent-bridge/bridge';
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
  it('reports the bytes its data takes: up with appends, down as events are dropped and sessions forgotten', async () => {
    const store = await LmdbStore.open({ path: newDir(), maxBytes: 1024 * 1024 });
    open.push(store);
    const empty = store.size();
    expect(empty.maxBytes).toBe(1024 * 1024);
    const sink = recordingSink();
    const log = store.eventLog('s1', sink);
    for (let seq = 1; seq <= 1000; seq++) log.append(seq, new Uint8Array(1000).fill(seq % 256));
    await waitFor('the commit of seq 1000', () => sink.committedUpTo === 1000);
    const full = store.size().usedBytes;
    expect(full).toBeGreaterThan(1000 * 1000);
    log.dropBefore(991);
    log.append(1001, new Uint8Array([1]));
    await waitFor('the commit of seq 1001', () => sink.committedUpTo === 1001);
    expect(store.size().usedBytes).toBeLessThan(full / 10);
    expect([...store.storedEvents('s1')].map((e) => e.seq)).toEqual(
      Array.from({ length: 11 }, (_, i) => 991 + i),
    );
    store.forgetSession('s1');
    await waitFor('the session to be forgotten', () => store.size().usedBytes <= empty.usedBytes);
  });

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
    // From a position: what a fleet replica reads after the last event it published.
    expect([...store.storedEvents('s1', 8)].map((e) => e.seq)).toEqual([9, 10]);
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

  it('keeps session records and cursors across a reopen, apart per session, and forgets a session whole', async () => {
    const path = newDir();
    let store = await openStore(path);
    const record = (sessionId: string): SessionRecord => ({
      request: {
        projectId: 'p',
        sessionId,
        repoPath: '/r',
        provider: 'mock',
        agentOpts: { model: 'm' },
      },
      repoPath: '/real/r',
      status: 'STOPPED',
      createdAt: 1000,
      facts: { pid: 5, error: '', exitCode: 0, exitSignal: '', endedAt: 2000 },
    });
    // "s1" is a prefix of "s10": their keys must not mix.
    for (const id of ['s1', 's10']) {
      store.saveSession(record(id));
      const sink = recordingSink();
      const log = store.eventLog(id, sink);
      log.append(1, new Uint8Array([1]));
      log.append(2, new Uint8Array([2]));
      await store.saveCursor(id, { subscriberId: 'cp', ackSeq: 2, touchedAt: 1500 });
      await waitFor(`the commit of ${id}`, () => sink.committedUpTo === 2);
    }
    const reopen = async () => {
      await store.close();
      open.length = 0;
      store = await openStore(path);
      return new Map([...store.storedSessions()].map((s) => [s.record.request.sessionId, s]));
    };
    let stored = await reopen();
    expect([...stored.keys()].sort()).toEqual(['s1', 's10']);
    const s1 = stored.get('s1')!;
    expect(s1.record).toEqual(record('s1'));
    expect([...s1.events()].map((e) => [e.seq, [...e.bytes]])).toEqual([
      [1, [1]],
      [2, [2]],
    ]);
    expect(s1.cursors).toEqual([{ subscriberId: 'cp', ackSeq: 2, touchedAt: 1500 }]);
    store.forgetSession('s1');
    stored = await reopen();
    expect([...stored.keys()]).toEqual(['s10']);
    expect([...store.storedEvents('s1')]).toEqual([]);
    expect([...stored.get('s10')!.events()].map((e) => e.seq)).toEqual([1, 2]);
    expect(stored.get('s10')!.cursors).toHaveLength(1);
  });
});

import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CursorKey, FileCursorStore, MemoryCursorStore } from './cursor-store.js';

const root = mkdtempSync(join(tmpdir(), 'cursors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const key = (over: Partial<CursorKey> = {}): CursorKey => ({
  target: '10.0.0.1:9445',
  projectId: 'alpha',
  sessionId: '0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e',
  subscriberId: 'cp-1',
  ...over,
});

describe.each([
  ['memory', () => new MemoryCursorStore()],
  ['file', () => new FileCursorStore(mkdtempSync(join(root, 'store-')))],
])('%s cursor store', (_name, make) => {
  it('keeps one cursor per project, session and subscriber, whatever address reached it', async () => {
    const store = make();
    await store.save(key(), { ackSeq: 7, instanceId: 'i1' });
    await store.save(key({ subscriberId: 'cp-2' }), { ackSeq: 3, instanceId: 'i1' });
    expect(await store.load(key())).toEqual({ ackSeq: 7, instanceId: 'i1' });
    expect(await store.load(key({ subscriberId: 'cp-2' }))).toEqual({
      ackSeq: 3,
      instanceId: 'i1',
    });
    // The same daemon through a proxy, a load balancer or another name.
    expect(await store.load(key({ target: 'localhost:9445' }))).toEqual({
      ackSeq: 7,
      instanceId: 'i1',
    });
    for (const other of [{ projectId: 'beta' }, { sessionId: 'x' }]) {
      expect(await store.load(key(other))).toBeUndefined();
    }
    await store.save(key(), { ackSeq: 9, instanceId: 'i1' });
    expect(await store.load(key())).toEqual({ ackSeq: 9, instanceId: 'i1' });
    await store.delete(key());
    expect(await store.load(key())).toBeUndefined();
  });
});

describe('FileCursorStore', () => {
  it('finds a cursor an older version saved under the address it used, and deletes it with the key', async () => {
    const dir = mkdtempSync(join(root, 'legacy-'));
    const legacy = JSON.stringify([
      key().target,
      key().projectId,
      key().sessionId,
      key().subscriberId,
    ]);
    const file = join(dir, `${createHash('sha256').update(legacy).digest('hex')}.json`);
    writeFileSync(
      file,
      JSON.stringify({ key: JSON.parse(legacy), cursor: { ackSeq: 5, instanceId: 'i0' } }),
    );
    const store = new FileCursorStore(dir);
    expect(await store.load(key())).toEqual({ ackSeq: 5, instanceId: 'i0' });
    await store.save(key(), { ackSeq: 6, instanceId: 'i0' });
    expect(await store.load(key({ target: 'elsewhere:1' }))).toEqual({
      ackSeq: 6,
      instanceId: 'i0',
    });
    await store.delete(key());
    expect(readdirSync(dir)).toEqual([]);
    expect(await store.load(key())).toBeUndefined();
  });

  it('writes whole files only (0600, in a 0700 directory), readable by a new store on the same directory', async () => {
    const dir = join(root, 'fresh', 'cursors');
    await new FileCursorStore(dir).save(key(), { ackSeq: 42, instanceId: 'i9' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(await new FileCursorStore(dir).load(key())).toEqual({ ackSeq: 42, instanceId: 'i9' });
  });

  it('refuses a file that is not this key`s cursor', async () => {
    const dir = mkdtempSync(join(root, 'bad-'));
    const store = new FileCursorStore(dir);
    await store.save(key(), { ackSeq: 1, instanceId: 'i' });
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), JSON.stringify({ key: ['x'], cursor: { ackSeq: 1 } }));
    await expect(store.load(key())).rejects.toThrow('is not a cursor for this key');
    writeFileSync(join(dir, file!), '{"key": [');
    await expect(store.load(key())).rejects.toThrow('is corrupt (not JSON): delete it');
  });
});

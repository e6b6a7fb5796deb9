import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Party, Post } from '@agent-bridge/bridge';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbStore } from './lmdb-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lead: Party = { kind: 'session', id: 's1', name: 'lead', role: 'planner' };
const alice: Party = { kind: 'person', id: 'alice', name: 'alice', role: '' };
const post = (projectId: string, id: number): Post => ({
  id,
  projectId,
  from: lead,
  at: 1_700_000_000_000 + id,
  category: 'finding',
  priority: 'high',
  content: `post ${id}`,
  targets: ['dev'],
  threadId: 't',
  replyTo: 0,
  metadata: { file: 'a.ts' },
});
const message = (id: number, readAt?: number): Message => ({
  id,
  projectId: 'alpha',
  from: alice,
  to: lead,
  at: 1_700_000_000_000,
  content: 'hi',
  threadId: String(id),
  replyTo: 0,
  deliver: 'turn',
  ...(readAt === undefined ? {} : { readAt }),
});

describe('LmdbStore: the context bus and messages', () => {
  it('keeps posts, acks and messages (latest state) across a reopen; dropped posts take their acks', async () => {
    const path = mkdtempSync(join(tmpdir(), 'bridge-collab-'));
    dirs.push(path);
    const store = await LmdbStore.open({ path });
    for (const p of [post('alpha', 1), post('alpha', 2), post('beta', 1)])
      await store.collab.putPost(p);
    await store.collab.putAck({ projectId: 'alpha', reader: 'session:s2', postId: 1 });
    await store.collab.putAck({ projectId: 'alpha', reader: 'person:alice', postId: 2 });
    await store.collab.putAck({ projectId: 'beta', reader: 'session:s2', postId: 1 });
    await store.collab.putMessage(message(1));
    await store.collab.putMessage(message(1, 1_700_000_000_500));
    await store.collab.putMessage(message(2));
    store.collab.dropPosts('alpha', [1]);
    store.collab.dropMessages('alpha', [2]);
    await store.close();

    const again = await LmdbStore.open({ path });
    try {
      const kept = again.collab.load();
      expect(kept.posts).toEqual([post('alpha', 2), post('beta', 1)]);
      expect(kept.acks).toEqual([
        { projectId: 'alpha', reader: 'person:alice', postId: 2 },
        { projectId: 'beta', reader: 'session:s2', postId: 1 },
      ]);
      expect(kept.messages).toEqual([message(1, 1_700_000_000_500)]);
    } finally {
      await again.close();
    }
  });
});

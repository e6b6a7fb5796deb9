import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../limits/token-buckets.js';
import { FakeClock } from '../testing/fake-clock.js';
import { refusalOf } from '../testing/fixtures.js';
import { type CollabStore, memoryCollabStore, type StoredAck } from './collab-store.js';
import { LIMITS, type Party, type Post, type PostDraft } from './collab-types.js';
import { ContextBoard } from './context-board.js';

const session = (id: string, name: string, role = ''): Party => ({
  kind: 'session',
  id,
  name,
  role,
});
const lead = session('s-lead', 'lead', 'planner');
const dev = session('s-dev', 'dev', 'implementer');
const qa = session('s-qa', 'qa', 'reviewer');
const person: Party = { kind: 'person', id: 'alice', name: 'alice', role: '' };

const draft = (over: Partial<PostDraft> = {}): PostDraft => ({
  category: 'finding',
  priority: 'info',
  content: 'the build needs node 20',
  targets: [],
  threadId: '',
  replyTo: 0,
  metadata: {},
  ...over,
});

/** A store that records what it was given, as the durable one would keep it. */
function recordingStore() {
  const posts: Post[] = [];
  const acks: StoredAck[] = [];
  const dropped: number[] = [];
  const store: CollabStore = {
    ...memoryCollabStore(),
    putPost: async (p) => void posts.push(structuredClone(p)),
    putAck: async (a) => void acks.push(a),
    dropPosts: (_project, ids) => void dropped.push(...ids),
  };
  return { store, posts, acks, dropped };
}

function setup(rate = { perMinute: 600, burst: 100 }) {
  const clock = new FakeClock();
  const kept = recordingStore();
  const board = new ContextBoard({ store: kept.store, clock, rate: new TokenBuckets(rate, clock) });
  return { clock, board, ...kept };
}

describe('ContextBoard', () => {
  it('numbers posts per project from 1 and reads them on from a cursor', async () => {
    const { board, clock } = setup();
    const first = await board.post('alpha', lead, draft());
    clock.advance(1000);
    const second = await board.post('alpha', dev, draft({ category: 'question', threadId: 't1' }));
    expect([first.id, second.id]).toEqual([1, 2]);
    expect(second).toMatchObject({ projectId: 'alpha', from: dev, at: first.at + 1000 });
    expect((await board.post('beta', lead, draft())).id).toBe(1);

    const all = board.read('alpha', qa, {});
    expect(all.posts.map((p) => p.id)).toEqual([1, 2]);
    expect(all.cursor).toBe(2);
    expect(board.read('alpha', qa, { afterId: all.cursor })).toEqual({ posts: [], cursor: 2 });
    expect(board.read('alpha', qa, { limit: 1 })).toMatchObject({ posts: [first], cursor: 1 });
    expect(board.read('alpha', qa, { category: 'question' }).posts).toEqual([second]);
    expect(board.read('alpha', qa, { source: 'lead' }).posts).toEqual([first]);
    expect(board.read('alpha', qa, { source: 's-dev' }).posts).toEqual([second]);
    expect(board.read('alpha', qa, { threadId: 't1' }).posts).toEqual([second]);
    expect(board.read('alpha', qa, { since: second.at }).posts).toEqual([second]);
  });

  it('a targeted post is seen by its targets (name or role), its author and people only', async () => {
    const { board } = setup();
    const byName = await board.post('alpha', lead, draft({ targets: ['dev'] }));
    const byRole = await board.post('alpha', lead, draft({ targets: ['reviewer'] }));
    const ids = (reader: Party) => board.read('alpha', reader, {}).posts.map((p) => p.id);
    expect(ids(dev)).toEqual([byName.id]);
    expect(ids(qa)).toEqual([byRole.id]);
    expect(ids(lead)).toEqual([byName.id, byRole.id]);
    expect(ids(person)).toEqual([byName.id, byRole.id]);
    expect(ids(session('s-x', 'x'))).toEqual([]);
  });

  it('acks are per reader, committed, and filter unacked reads', async () => {
    const { board, acks } = setup();
    const a = await board.post('alpha', lead, draft());
    const b = await board.post('alpha', lead, draft());
    expect(await board.ack('alpha', dev, [a.id, a.id])).toBe(1);
    expect(await board.ack('alpha', dev, [a.id])).toBe(0);
    expect(acks).toEqual([{ projectId: 'alpha', reader: 'session:s-dev', postId: a.id }]);
    expect(board.read('alpha', dev, { unacked: true }).posts).toEqual([b]);
    expect(board.read('alpha', qa, { unacked: true }).posts).toEqual([a, b]);
  });

  it('an ack of a post the reader cannot see, or of another project, is not_found and records nothing', async () => {
    const { board, acks } = setup();
    const secret = await board.post('alpha', lead, draft({ targets: ['dev'] }));
    const open = await board.post('alpha', lead, draft());
    expect(await refusalOf(() => board.ack('alpha', qa, [open.id, secret.id]))).toMatchObject({
      kind: 'not_found',
      reason: 'collab_post_not_found',
    });
    expect(await refusalOf(() => board.ack('beta', dev, [secret.id]))).toMatchObject({
      kind: 'not_found',
    });
    expect(acks).toEqual([]);
    expect(board.read('alpha', qa, { unacked: true }).posts).toEqual([open]);
    expect(board.read('beta', person, {}).posts).toEqual([]);
  });

  it('refuses bad posts with the field and the bound, storing nothing and using no id', async () => {
    const { board, posts } = setup();
    const cases: [Partial<PostDraft>, string][] = [
      [{ category: '' }, 'collab_label_invalid'],
      [{ category: 'a b' }, 'collab_label_invalid'],
      [{ priority: 'urgentest' as 'info' }, 'collab_choice_invalid'],
      [{ content: ' ' }, 'collab_content_empty'],
      [{ content: 'x'.repeat(LIMITS.contentBytes + 1) }, 'collab_content_too_large'],
      [
        { targets: Array.from({ length: LIMITS.targets + 1 }, (_, i) => `t${i}`) },
        'collab_targets_too_many',
      ],
      [{ targets: ['../x'] }, 'collab_label_invalid'],
      [{ threadId: 'a\nb' }, 'collab_thread_invalid'],
      [{ metadata: { k: 'v'.repeat(LIMITS.metadataValueBytes + 1) } }, 'collab_metadata_too_large'],
      [{ replyTo: -1 }, 'collab_reply_invalid'],
    ];
    for (const [over, reason] of cases) {
      expect(await refusalOf(() => board.post('alpha', lead, draft(over))), reason).toMatchObject({
        kind: 'invalid_argument',
        reason,
      });
    }
    expect(await refusalOf(() => board.post('alpha', lead, draft({ replyTo: 7 })))).toMatchObject({
      kind: 'not_found',
    });
    expect(
      await refusalOf(() => board.read('alpha', lead, { limit: LIMITS.readMax + 1 })),
    ).toMatchObject({
      kind: 'invalid_argument',
    });
    expect(posts).toEqual([]);
    expect((await board.post('alpha', lead, draft())).id).toBe(1);
  });

  it('limits each author, not the others, until its allowance refills', async () => {
    const { board, clock } = setup({ perMinute: 60, burst: 2 });
    await board.post('alpha', lead, draft());
    await board.post('alpha', lead, draft());
    const flood = await refusalOf(() => board.post('alpha', lead, draft()));
    expect(flood).toMatchObject({ kind: 'resource_exhausted', reason: 'collab_rate_limited' });
    expect(flood.message).toContain('lead');
    await board.post('alpha', dev, draft());
    clock.advance(1000);
    expect((await board.post('alpha', lead, draft())).id).toBe(4);
  });

  it('comes back from what the store kept: posts, the next id and acks', async () => {
    const { board, posts, acks, clock } = setup();
    const a = await board.post('alpha', lead, draft());
    await board.post('alpha', lead, draft());
    await board.ack('alpha', dev, [a.id]);
    const again = new ContextBoard(
      {
        store: memoryCollabStore(),
        clock,
        rate: new TokenBuckets({ perMinute: 0, burst: 0 }, clock),
      },
      { posts, acks },
    );
    expect(again.read('alpha', dev, { unacked: true }).posts.map((p) => p.id)).toEqual([2]);
    expect((await again.post('alpha', lead, draft())).id).toBe(3);
  });

  it('keeps the newest posts of a project, dropping the oldest and their acks from the store', async () => {
    const { board, dropped } = setup({ perMinute: 0, burst: 0 });
    const first = await board.post('alpha', lead, draft());
    await board.ack('alpha', dev, [first.id]);
    for (let i = 1; i <= LIMITS.keptPerProject; i++) await board.post('alpha', lead, draft());
    expect(dropped).toEqual([first.id]);
    const page = board.read('alpha', dev, { limit: 1 });
    expect(page.posts[0]?.id).toBe(2);
    expect(await refusalOf(() => board.ack('alpha', dev, [first.id]))).toMatchObject({
      kind: 'not_found',
    });
  });
});

/**
 * The context bus and messages across a daemon restart: posts, acks and
 * messages committed before a SIGKILL are all there after it, ids go on
 * from where they were, and the acks still filter unacked reads.
 */
import { bridgesOfEachTest, startBridge, within } from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';

const bridges = bridgesOfEachTest();

describe('collaboration across a daemon restart', () => {
  it('keeps posts, acks and messages, and numbers on', async () => {
    const first = await startBridge();
    bridges.push(first);
    const post = (b: typeof first, content: string) =>
      b.call((c) => c.postContext, {
        category: 'finding',
        priority: 'info',
        content,
        targets: [],
        threadId: 't',
        replyTo: 0n,
        metadata: { k: 'v' },
      });
    const read = (b: typeof first, unacked: boolean) =>
      b.call((c) => c.readContext, {
        afterId: 0n,
        since: undefined,
        category: '',
        source: '',
        threadId: '',
        unacked,
        limit: 0,
      });
    const a = (await post(first, 'before the crash')).post!;
    const b = (await post(first, 'acked before the crash')).post!;
    await first.call((c) => c.ackContext, { postIds: [b.id] });
    await first.call((c) => c.sendMessage, {
      person: 'tester',
      content: 'kept for later',
      threadId: '',
      deliver: '',
      replyTo: 0n,
    });
    first.daemon.proc.kill('SIGKILL');
    await within('the daemon to die', first.daemon.exited, 20_000);

    const again = await startBridge({ pki: first.pki, dir: first.daemon.dir });
    bridges.push(again);
    expect((await read(again, false)).posts.map((p) => [p.id, p.content, p.metadata])).toEqual([
      [a.id, 'before the crash', { k: 'v' }],
      [b.id, 'acked before the crash', { k: 'v' }],
    ]);
    expect((await read(again, true)).posts.map((p) => p.id)).toEqual([a.id]);
    expect((await post(again, 'after the restart')).post?.id).toBe(b.id + 1n);
    const inbox = await again.call((c) => c.listMessages, { limit: 0, unreadOnly: true });
    expect(inbox.messages.map((m) => m.content)).toEqual(['kept for later']);
  });
});

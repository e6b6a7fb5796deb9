/**
 * The collaboration RPCs as a control plane uses them, over real mTLS and
 * JWT: a person posts to the project's context bus, reads and acks it,
 * messages a live session (as a turn its agent answers) and reads its own
 * inbox; another project sees nothing; bad and flooding calls are refused
 * with their code and leave nothing behind.
 */
import { randomUUID } from 'node:crypto';
import { collect, status, useDaemon } from '@agent-bridge/harness';
import { EventType, type PostContextRequest } from '@agent-bridge/proto';
import type { Metadata, ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon();

const post = (over: Partial<PostContextRequest> = {}, md?: Metadata) =>
  bridge.call(
    (c) => c.postContext,
    {
      category: 'finding',
      priority: 'high',
      content: 'the API returns 500 on empty input',
      targets: [],
      threadId: '',
      replyTo: 0n,
      metadata: { file: 'src/api.ts' },
      ...over,
    },
    md,
  );

const read = (md?: Metadata, over: { afterId?: bigint; unacked?: boolean } = {}) =>
  bridge.call(
    (c) => c.readContext,
    {
      afterId: over.afterId ?? 0n,
      since: undefined,
      category: '',
      source: '',
      threadId: '',
      unacked: over.unacked ?? false,
      limit: 0,
    },
    md,
  );

const refused = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('the call was accepted');
    },
    (err: ServiceError) => ({ code: err.code, details: err.details }),
  );

describe('collaboration through the gRPC API (a person of the project)', () => {
  it('posts, reads from a cursor and acks; the post names its author from the token', async () => {
    const before = await read();
    const { post: p } = await post({ threadId: 'bugs' });
    expect(p).toMatchObject({
      from: { kind: 'person', id: 'tester', name: 'tester', role: '' },
      category: 'finding',
      priority: 'high',
      threadId: 'bugs',
      metadata: { file: 'src/api.ts' },
    });
    const after = await read(undefined, { afterId: before.cursor });
    expect(after.posts.map((x) => x.id)).toEqual([p!.id]);
    expect(after.cursor).toBe(p!.id);
    expect((await bridge.call((c) => c.ackContext, { postIds: [p!.id, p!.id] })).acked).toBe(1);
    expect((await read(undefined, { unacked: true })).posts.map((x) => x.id)).not.toContain(p!.id);
  });

  it('another project sees none of it, and cannot ack it', async () => {
    const { post: p } = await post({ content: 'alpha only' });
    const beta = await bridge.bearerFor('beta');
    expect((await read(beta)).posts).toEqual([]);
    const acked = await refused(bridge.call((c) => c.ackContext, { postIds: [p!.id] }, beta));
    expect(acked.code).toBe(status.NOT_FOUND);
  });

  it('refuses a bad post with the field and its bound, keeping nothing', async () => {
    const { cursor } = await read();
    for (const [over, field] of [
      [{ content: 'x'.repeat(16 * 1024 + 1) }, /content is 16385 bytes; at most 16384/],
      [{ category: 'no spaces' }, /^category /],
      [{ priority: 'asap' }, /^priority must be one of info, high, urgent/],
      [{ targets: ['a/b'] }, /^a target /],
    ] as [Partial<PostContextRequest>, RegExp][]) {
      const r = await refused(post(over));
      expect(r.code).toBe(status.INVALID_ARGUMENT);
      expect(r.details).toMatch(field);
    }
    expect((await read(undefined, { afterId: cursor })).posts).toEqual([]);
  });

  it('a message with deliver: turn reaches a named session as a turn; the agent answers it', async () => {
    const sessionId = randomUUID();
    await bridge.call((c) => c.startSession, {
      projectId: 'alpha',
      sessionId,
      repoPath: bridge.daemon.repo,
      provider: 'mock',
      agentOpts: {},
      name: 'worker',
      role: 'implementer',
    });
    const sent = await bridge.call((c) => c.sendMessage, {
      session: 'worker',
      content: 'run the tests please',
      threadId: '',
      deliver: 'turn',
      replyTo: 0n,
    });
    expect(sent.messages).toMatchObject([
      {
        from: { kind: 'person', id: 'tester' },
        to: { kind: 'session', id: sessionId, name: 'worker' },
      },
    ]);
    const { events } = await collect(
      bridge.stream({ sessionId, afterSeq: 0n }),
      (e) => e.type === EventType.EVENT_TYPE_TURN_COMPLETED,
    );
    const received = events.find((e) => e.type === EventType.EVENT_TYPE_MESSAGE_RECEIVED);
    expect(received?.data).toMatchObject({ from: 'tester', from_kind: 'person', deliver: 'turn' });
    const input = events.find((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED);
    expect(input?.text).toContain('run the tests please');
    expect(Number(input?.seq)).toBeGreaterThan(Number(received?.seq));
    // A session that is not live is not a recipient.
    await bridge.call((c) => c.stopSession, { sessionId, force: false });
    const gone = await refused(
      bridge.call((c) => c.sendMessage, {
        session: 'worker',
        content: 'still there?',
        threadId: '',
        deliver: 'inbox',
        replyTo: 0n,
      }),
    );
    expect(gone).toMatchObject({ code: status.NOT_FOUND });
    expect(gone.details).toContain('no live session "worker"');
  });

  it('a message without a recipient is INVALID_ARGUMENT; the inbox lists what came to the caller', async () => {
    const none = await refused(
      bridge.call((c) => c.sendMessage, {
        content: 'to whom?',
        threadId: '',
        deliver: '',
        replyTo: 0n,
      }),
    );
    expect(none.code).toBe(status.INVALID_ARGUMENT);
    await bridge.call((c) => c.sendMessage, {
      person: 'tester',
      content: 'a note to myself',
      threadId: '',
      deliver: '',
      replyTo: 0n,
    });
    const inbox = await bridge.call((c) => c.listMessages, { limit: 0, unreadOnly: true });
    expect(inbox.messages.map((m) => m.content)).toEqual(['a note to myself']);
    expect(
      (await bridge.call((c) => c.listMessages, { limit: 0, unreadOnly: true })).messages,
    ).toEqual([]);
  });

  it('a flood of posts is RESOURCE_EXHAUSTED once the allowance is spent, for that author only', async () => {
    const flooder = await bridge.bearerFor('alpha', { sub: 'flooder' });
    const codes: number[] = [];
    for (let i = 0; i < 25; i++) {
      codes.push(
        await post({ content: `flood ${i}` }, flooder).then(
          () => status.OK,
          (e: ServiceError) => e.code,
        ),
      );
    }
    expect(codes.slice(0, 20).every((c) => c === status.OK)).toBe(true);
    expect(codes.at(-1)).toBe(status.RESOURCE_EXHAUSTED);
    expect((await post({ content: 'still fine' })).post?.from?.id).toBe('tester');
  });
});

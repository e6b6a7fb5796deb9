import { randomUUID } from 'node:crypto';
import { type Bridge, collect, waitFor } from '@agent-bridge/harness';
import { EventType, ReadContextRequest, type ReadContextResponse } from '@agent-bridge/proto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fleetDaemon, useFleet } from './fleet-fixture.js';

// The context bus of a project spans the daemons of its fleet: a post
// made on one is read on the others, reaches the sessions it names there,
// and a reply made there answers it here.

const fleet = useFleet();

const daemon = async (daemonId: string) => {
  const b = await fleetDaemon(fleet.cluster, fleet.pki, {
    daemonId,
    fleet: 'team',
    providers: { echo: ['echo'] },
  });
  fleet.bridges.push(b);
  return b;
};

const post = (b: Bridge, content: string, targets: string[] = [], replyTo = 0n) =>
  b.call((c) => c.postContext, {
    category: 'finding',
    priority: 'high',
    content,
    targets,
    threadId: '',
    replyTo,
    metadata: { file: 'build.sh' },
  });

const EVERY_POST = ReadContextRequest.fromPartial({});
const read = (b: Bridge): Promise<ReadContextResponse> => b.call((c) => c.readContext, EVERY_POST);

let a: Bridge;
let b: Bridge;
beforeAll(async () => {
  [a, b] = await Promise.all([daemon('daemon-a'), daemon('daemon-b')]);
}, 120_000);

/** `get()` polled until `ok` holds of its answer (an answer that fails counts as not yet); that answer. */
async function polled<T>(
  what: string,
  get: () => Promise<T>,
  ok: (t: T) => boolean = () => true,
): Promise<T> {
  let last: T | undefined;
  await waitFor(
    what,
    async () => {
      const got = await get().catch(() => undefined);
      if (got === undefined || !ok(got)) return false;
      last = got;
      return true;
    },
    30_000,
    200,
  );
  return last!;
}

const startOn = async (on: Bridge, provider: string, name: string, role: string) => {
  const sessionId = randomUUID();
  await on.call((c) => c.startSession, {
    projectId: on.project,
    sessionId,
    repoPath: on.daemon.repo,
    provider,
    agentOpts: {},
    name,
    role,
  });
  return sessionId;
};

describe('the context bus across a fleet', () => {
  it('a post on A is read on B and reaches the session it names there; a reply on B answers it on A', async () => {
    // A reviewer on B, before anything is posted.
    const reviewer = await startOn(b, 'echo', 'rev-1', 'reviewer');
    const watching = collect(
      b.stream({ sessionId: reviewer, afterSeq: 0n }),
      (e) => e.type === EventType.EVENT_TYPE_CONTEXT_POSTED,
      { timeoutMs: 30_000 },
    );
    const made = (await post(a, 'the build fails on arm64', ['reviewer'])).post!;

    const got = (await watching).events.at(-1)!;
    expect(got.text).toBe('the build fails on arm64');
    expect(got.data).toMatchObject({
      category: 'finding',
      from_kind: 'person',
      targets: ['reviewer'],
    });

    const onB = await polled(
      'B to hold the post',
      () => read(b),
      (r) => r.posts.length === 1,
    );
    const held = onB.posts[0]!;
    expect(held).toMatchObject({
      content: 'the build fails on arm64',
      category: 'finding',
      priority: 'high',
      targets: ['reviewer'],
      metadata: { file: 'build.sh' },
      from: made.from,
    });

    // Answered on B, by B's number for it: on A the answer names A's post.
    await post(b, 'reproduced: the arm64 runner lacks libfoo', [], held.id);
    const onA = await polled(
      'A to hold the answer',
      () => read(a),
      (r) => r.posts.length === 2,
    );
    expect(onA.posts.map((p) => [p.content, p.replyTo])).toEqual([
      ['the build fails on arm64', 0n],
      ['reproduced: the arm64 runner lacks libfoo', made.id],
    ]);
    // Each post held once on each daemon, however often the fleet gives it.
    expect((await read(b)).posts).toHaveLength(2);

    // Another project sees none of it.
    const beta = await b.bearerFor('beta');
    const other = await b.call((c) => c.readContext, EVERY_POST, beta);
    expect(other.posts).toEqual([]);
  }, 120_000);

  it('a message from A to a session on B by name reaches it there; its answer comes back to the sender on A', async () => {
    // The built-in mock agent performs the "/bridge <tool> <json>" lines it is given.
    const checker = await startOn(b, 'mock', 'checker', 'qa');
    const receiving = collect(
      b.stream({ sessionId: checker, afterSeq: 0n }),
      (e) => e.type === EventType.EVENT_TYPE_MESSAGE_RECEIVED,
      { timeoutMs: 30_000 },
    );
    // A learns of B's sessions from the fleet's records: until then, no such session.
    const sent = await polled('A to know the session on B', () =>
      a.call((c) => c.sendMessage, {
        session: 'checker',
        content: 'please run the arm64 job',
        threadId: '',
        deliver: '',
        replyTo: 0n,
      }),
    );
    const original = sent.messages[0]!;
    expect(original.to).toMatchObject({
      kind: 'session',
      id: checker,
      name: 'checker',
      role: 'qa',
    });

    const got = (await receiving).events.at(-1)!;
    expect(got.text).toBe('please run the arm64 job');
    expect(got.data).toMatchObject({ from_kind: 'person', deliver: 'inbox' });
    const idOnB = (got.data as { message_id: number }).message_id;

    await b.call((c) => c.sendInput, {
      sessionId: checker,
      text: `/bridge message_reply ${JSON.stringify({ message_id: idOnB, content: 'on it' })}`,
      idempotencyKey: '',
    });
    const inbox = await polled(
      'the answer in the sender inbox on A',
      () => a.call((c) => c.listMessages, { limit: 0, unreadOnly: false }),
      (r) => r.messages.length > 0,
    );
    expect(inbox.messages.map((m) => [m.content, m.from?.id, m.replyTo, m.threadId])).toEqual([
      ['on it', checker, original.id, original.threadId],
    ]);
  }, 120_000);
});

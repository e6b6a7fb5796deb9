import type { AgentEvent } from '@agent-bridge/providers';
import { describe, expect, it } from 'vitest';
import { noAudit } from '../audit.js';
import { FakeClock } from '../testing/fake-clock.js';
import { member } from '../testing/members.js';
import type { SessionsView } from './collab-ports.js';
import { memoryCollabStore } from './collab-store.js';
import type { Party, PostDraft } from './collab-types.js';
import { COLLAB_RATE, Collaboration } from './collaboration.js';
import type { FleetMessage, FleetPost } from './fleet-posts.js';
import { memberParty } from './mailboxes.js';

// `here` runs on this daemon; `there` on another daemon of the fleet.
const HERE = member('00000000-0000-4000-8000-00000000000a', 'here', 'reviewer');
const THERE = member('00000000-0000-4000-8000-00000000000b', 'there', 'implementer');
const alice: Party = { kind: 'person', id: 'alice', name: 'alice', role: '' };
const SELF = 'daemon-a/h-a';
const OTHER = 'daemon-b/h-b';

const draft = (content: string, over: Partial<PostDraft> = {}): PostDraft => ({
  category: 'finding',
  priority: 'info',
  content,
  targets: [],
  threadId: '',
  replyTo: 0,
  metadata: {},
  ...over,
});

function setup() {
  const clock = new FakeClock();
  const recorded: [string, AgentEvent][] = [];
  const relayed: { posts: FleetPost[]; messages: FleetMessage[] } = { posts: [], messages: [] };
  const sessions: SessionsView = {
    members: () => [HERE, THERE],
    // As the daemon's: only its own live sessions record events.
    record: (id, ev) => {
      if (id === HERE.sessionId) recorded.push([id, ev]);
    },
    deliver: () => false,
    isHere: (id) => id === HERE.sessionId,
  };
  const collab = new Collaboration({
    store: memoryCollabStore(),
    clock,
    timers: clock,
    audit: noAudit,
    sessions,
    rate: COLLAB_RATE,
    relay: {
      self: SELF,
      posted: (p) => void relayed.posts.push(p),
      sent: (m) => void relayed.messages.push(m),
      members: () => [THERE],
    },
  });
  return { collab, recorded, relayed };
}

const remotePost = (id: number, content: string, over: Partial<FleetPost> = {}): FleetPost => ({
  ...draft(content),
  origin: `${OTHER}/${id}`,
  projectId: 'alpha',
  from: memberParty(THERE),
  at: 1000,
  replyTo: '',
  ...over,
});

describe('the context bus of a daemon in a fleet', () => {
  it('holds a post from another daemon once, numbered here, and records it on the sessions it targets', async () => {
    const { collab, recorded } = setup();
    await collab.post('alpha', alice, draft('first, made here'));
    const incoming = remotePost(7, 'from B', { targets: ['reviewer'] });
    await collab.importPost(incoming);
    await collab.importPost(incoming);
    // Its own posts coming back from the fleet are not held twice either.
    await collab.importPost({ ...incoming, origin: `${SELF}/1` });
    const posts = collab.read('alpha', alice, {}).posts;
    expect(posts.map((p) => [p.id, p.content, p.origin])).toEqual([
      [1, 'first, made here', undefined],
      [2, 'from B', `${OTHER}/7`],
    ]);
    expect(
      recorded.filter(([, ev]) => ev.type === 'CONTEXT_POSTED').map(([id, ev]) => [id, ev.text]),
    ).toEqual([[HERE.sessionId, 'from B']]);
  });

  it('gives the fleet each post made here with its reply named by origin, and maps the replies it holds', async () => {
    const { collab, relayed } = setup();
    const mine = await collab.post('alpha', alice, draft('made here'));
    await collab.importPost(remotePost(3, 'theirs'));
    // A reply from B to A's post names it by A's origin: held as a reply to post 1.
    await collab.importPost(remotePost(4, 'answer to mine', { replyTo: `${SELF}/${mine.id}` }));
    // A reply made here to B's post names B's origin for it.
    await collab.post('alpha', alice, draft('answer to theirs', { replyTo: 2 }));
    const posts = collab.read('alpha', alice, {}).posts;
    expect(posts.map((p) => [p.id, p.replyTo])).toEqual([
      [1, 0],
      [2, 0],
      [3, 1],
      [4, 2],
    ]);
    expect(relayed.posts.map((p) => [p.origin, p.content, p.replyTo])).toEqual([
      [`${SELF}/1`, 'made here', ''],
      [`${SELF}/4`, 'answer to theirs', `${OTHER}/3`],
    ]);
  });

  it('sends a message to a session of another daemon through the fleet, and receives those for its own sessions', async () => {
    const { collab, recorded, relayed } = setup();
    // Addressed by name among the project's sessions on every daemon.
    const [out] = await collab.send('alpha', alice, {
      to: { session: 'there' },
      content: 'run the arm64 job',
      threadId: '',
      deliver: 'inbox',
    });
    expect(relayed.messages).toEqual([
      expect.objectContaining({
        origin: `${SELF}/m${out!.id}`,
        to: memberParty(THERE),
        replyTo: '',
      }),
    ]);
    expect(recorded.filter(([, ev]) => ev.type === 'MESSAGE_RECEIVED')).toEqual([]);

    const answer: FleetMessage = {
      origin: `${OTHER}/m9`,
      projectId: 'alpha',
      from: memberParty(THERE),
      to: memberParty(HERE),
      at: 2000,
      content: 'done',
      threadId: '1',
      replyTo: '',
      deliver: 'inbox',
    };
    await collab.importMessage(answer);
    await collab.importMessage(answer);
    // One for a session of yet another daemon: not for this one.
    await collab.importMessage({ ...answer, origin: `${OTHER}/m10`, to: memberParty(THERE) });
    const inbox = await collab.inbox('alpha', memberParty(HERE), {});
    expect(inbox.map((m) => [m.content, m.origin])).toEqual([['done', `${OTHER}/m9`]]);
    expect(recorded.filter(([, ev]) => ev.type === 'MESSAGE_RECEIVED').map(([id]) => id)).toEqual([
      HERE.sessionId,
    ]);

    // Its answer goes back to the daemon it came from, naming it by origin.
    await collab.reply('alpha', memberParty(HERE), inbox[0]!.id, 'thanks');
    expect(relayed.messages.at(-1)).toMatchObject({
      to: memberParty(THERE),
      replyTo: `${OTHER}/m9`,
    });
  });

  it('gives every daemon a message to a person, and again at a start what was made here', async () => {
    const { collab, relayed } = setup();
    await collab.post('alpha', alice, draft('kept'));
    await collab.send('alpha', memberParty(HERE), {
      to: { person: 'alice' },
      content: 'for alice',
      threadId: '',
      deliver: 'inbox',
    });
    expect(relayed.messages.map((m) => m.to.kind)).toEqual(['person']);
    relayed.posts.length = 0;
    relayed.messages.length = 0;
    collab.relayAll();
    expect(relayed.posts.map((p) => p.content)).toEqual(['kept']);
    expect(relayed.messages.map((m) => m.content)).toEqual(['for alice']);
  });
});

import { within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../limits/token-buckets.js';
import { FakeClock } from '../testing/fake-clock.js';
import { refusalOf } from '../testing/fixtures.js';
import { member } from '../testing/members.js';
import { type CollabStore, memoryCollabStore } from './collab-store.js';
import type { Member, Message, MessageDraft, Party } from './collab-types.js';
import { Mailboxes, memberParty } from './mailboxes.js';

const LEAD = member('00000000-0000-4000-8000-000000000001', 'lead', 'planner');
const DEV = member('00000000-0000-4000-8000-000000000002', 'dev', 'implementer');
const DEV2 = member('00000000-0000-4000-8000-000000000003', 'dev2', 'implementer');
const [lead, dev, dev2] = [LEAD, DEV, DEV2].map(memberParty) as [Party, Party, Party];
const alice: Party = { kind: 'person', id: 'alice', name: 'alice', role: '' };

const to = (over: Partial<MessageDraft> & Pick<MessageDraft, 'to'>): MessageDraft => ({
  content: 'please review src/a.ts',
  threadId: '',
  deliver: 'inbox',
  ...over,
});

function setup() {
  const clock = new FakeClock();
  const put: Message[] = [];
  const heard: Message[] = [];
  const store: CollabStore = {
    ...memoryCollabStore(),
    putMessage: async (m) => void put.push(structuredClone(m)),
  };
  const live = new Map<string, Member[]>([['alpha', [LEAD, DEV, DEV2]]]);
  const boxes = new Mailboxes({
    store,
    clock,
    timers: clock,
    rate: new TokenBuckets({ perMinute: 600, burst: 100 }, clock),
    directory: { members: (p) => live.get(p) ?? [] },
    onSent: (m) => heard.push(m),
  });
  return { clock, boxes, put, heard, live };
}

describe('Mailboxes', () => {
  it('sends by name or id to one live session, committed, then heard', async () => {
    const { boxes, put, heard } = setup();
    const [m] = await boxes.send('alpha', lead, to({ to: { session: 'dev' } }));
    expect(m).toMatchObject({
      id: 1,
      from: lead,
      to: dev,
      threadId: '1',
      replyTo: 0,
      deliver: 'inbox',
    });
    const [n] = await boxes.send(
      'alpha',
      lead,
      to({ to: { session: DEV.sessionId }, deliver: 'turn' }),
    );
    expect(n).toMatchObject({ id: 2, to: dev, deliver: 'turn' });
    expect(put.map((x) => x.id)).toEqual([1, 2]);
    expect(heard).toEqual([m, n]);
  });

  it('a role reaches every other live session that has it', async () => {
    const { boxes } = setup();
    const sent = await boxes.send('alpha', dev, to({ to: { role: 'implementer' } }));
    expect(sent.map((m) => m.to)).toEqual([dev2]);
    const all = await boxes.send('alpha', lead, to({ to: { role: 'implementer' } }));
    expect(all.map((m) => m.to)).toEqual([dev, dev2]);
  });

  it('refuses an unknown recipient, another project, itself and bad drafts, storing nothing', async () => {
    const { boxes, put } = setup();
    expect(
      await refusalOf(() => boxes.send('alpha', lead, to({ to: { session: 'ghost' } }))),
    ).toMatchObject({
      kind: 'not_found',
      reason: 'collab_recipient_not_found',
    });
    expect(
      await refusalOf(() => boxes.send('beta', lead, to({ to: { session: 'dev' } }))),
    ).toMatchObject({
      kind: 'not_found',
    });
    expect(
      await refusalOf(() => boxes.send('alpha', dev, to({ to: { role: 'nobody' } }))),
    ).toMatchObject({
      kind: 'not_found',
    });
    expect(
      await refusalOf(() => boxes.send('alpha', dev, to({ to: { session: 'dev' } }))),
    ).toMatchObject({
      kind: 'invalid_argument',
      reason: 'collab_to_self',
    });
    expect(
      await refusalOf(() => boxes.send('alpha', lead, to({ to: { session: 'dev' }, content: '' }))),
    ).toMatchObject({
      kind: 'invalid_argument',
    });
    expect(
      await refusalOf(() =>
        boxes.send('alpha', lead, to({ to: { session: 'dev' }, deliver: 'now' as 'turn' })),
      ),
    ).toMatchObject({ kind: 'invalid_argument', reason: 'collab_choice_invalid' });
    expect(put).toEqual([]);
  });

  it('an inbox gives unread first, then read newest first, and marks what it gave read', async () => {
    const { boxes, clock } = setup();
    await boxes.send('alpha', lead, to({ to: { session: 'dev' }, content: 'one' }));
    await boxes.send('alpha', lead, to({ to: { session: 'dev' }, content: 'two' }));
    const first = await boxes.inbox('alpha', dev, { limit: 1 });
    expect(first.map((m) => [m.content, m.readAt])).toEqual([['one', undefined]]);
    await boxes.send('alpha', lead, to({ to: { session: 'dev' }, content: 'three' }));
    const next = await boxes.inbox('alpha', dev);
    expect(next.map((m) => [m.content, m.readAt])).toEqual([
      ['two', undefined],
      ['three', undefined],
      ['one', clock.now()],
    ]);
    expect(await boxes.inbox('alpha', dev, { unreadOnly: true })).toEqual([]);
    expect(await boxes.inbox('alpha', dev2)).toEqual([]);
  });

  it('a reply goes to the sender in the same thread; only the recipient can reply', async () => {
    const { boxes } = setup();
    const [q] = await boxes.send(
      'alpha',
      alice,
      to({ to: { session: 'dev' }, threadId: 'review-7' }),
    );
    const r = await boxes.reply('alpha', dev, q!.id, 'done');
    expect(r).toMatchObject({ from: dev, to: alice, threadId: 'review-7', replyTo: q!.id });
    expect(boxes.involving('alpha', alice, 10).map((m) => m.id)).toEqual([r.id, q!.id]);
    expect(await refusalOf(() => boxes.reply('alpha', dev2, q!.id, 'me too'))).toMatchObject({
      kind: 'not_found',
      reason: 'collab_message_not_found',
    });
  });

  it('wait_for_message returns at once, on arrival, or empty at its bound', async () => {
    const { boxes, clock } = setup();
    const never = new AbortController().signal;
    const waiting = boxes.waitForMessage('alpha', dev, 60_000, never);
    const [m] = await boxes.send('alpha', lead, to({ to: { session: 'dev' } }));
    expect(await within('the wait to end on arrival', waiting)).toEqual(m);
    // Still unread: the wait does not read it.
    expect(await boxes.waitForMessage('alpha', dev, 60_000, never)).toEqual(m);
    const empty = boxes.waitForMessage('alpha', dev2, 5_000, never);
    clock.advance(5_000);
    expect(await within('the wait to end at its bound', empty)).toBeUndefined();
    const ac = new AbortController();
    const aborted = boxes.waitForMessage('alpha', dev2, 60_000, ac.signal);
    ac.abort();
    expect(await within('the wait to end when aborted', aborted)).toBeUndefined();
    expect(
      await refusalOf(() => boxes.waitForMessage('alpha', dev2, 301_000, never)),
    ).toMatchObject({
      kind: 'invalid_argument',
    });
  });

  it('comes back from what the store kept, numbering on', async () => {
    const { boxes, put, clock, live } = setup();
    await boxes.send('alpha', lead, to({ to: { session: 'dev' } }));
    await boxes.inbox('alpha', dev);
    const latest = [...new Map(put.map((m) => [m.id, m])).values()];
    const again = new Mailboxes(
      {
        store: memoryCollabStore(),
        clock,
        timers: clock,
        rate: new TokenBuckets({ perMinute: 0, burst: 0 }, clock),
        directory: { members: (p) => live.get(p) ?? [] },
      },
      latest,
    );
    expect(await again.inbox('alpha', dev, { unreadOnly: true })).toEqual([]);
    expect((await again.send('alpha', lead, to({ to: { session: 'dev' } })))[0]?.id).toBe(2);
  });
});

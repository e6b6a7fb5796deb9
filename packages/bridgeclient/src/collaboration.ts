import type * as Proto from '@agent-bridge/proto';
import type { CallOptions } from './options.js';
import type { Unary } from './private/unary-call.js';

/** Who posted or sent: a session of the project, or a person (a token's subject). */
export interface Party {
  kind: 'session' | 'person';
  /** The session id, or the person's subject. */
  id: string;
  /** The session's name ('' when unnamed), or the person's subject. */
  name: string;
  role: string;
}

export type Priority = 'info' | 'high' | 'urgent';

/** A post on the project's context bus. */
export interface ContextPost {
  /** 1, 2, 3… within the project: the read cursor. */
  id: number;
  from: Party;
  postedAt: Date;
  category: string;
  priority: Priority;
  content: string;
  /** Session names or roles it is meant for; empty: everyone. */
  targets: string[];
  threadId: string;
  /** The post it answers; 0 for none. */
  replyTo: number;
  metadata: Record<string, string>;
}

export interface PostOptions extends CallOptions {
  /** Free label, 1-64 of A-Z a-z 0-9 . _ -: "finding", "decision"… */
  category: string;
  /** 1 byte to 16 KiB of UTF-8. */
  content: string;
  priority?: Priority;
  targets?: string[];
  threadId?: string;
  replyTo?: number;
  metadata?: Record<string, string>;
}

export interface ReadOptions extends CallOptions {
  /** Only posts after this id: the previous page's `cursor`. */
  afterId?: number;
  since?: Date;
  category?: string;
  /** An author: a session name or id, or a person's subject. */
  source?: string;
  threadId?: string;
  /** Only posts this caller has not acknowledged. */
  unacked?: boolean;
  /** 1-200, default 50. */
  limit?: number;
}

export interface ContextPage {
  posts: ContextPost[];
  /** Pass as `afterId` to read on. */
  cursor: number;
}

/** A message between two parties of the project. */
export interface BridgeMessage {
  id: number;
  from: Party;
  to: Party;
  sentAt: Date;
  content: string;
  threadId: string;
  replyTo: number;
  /** "turn": also given to the session's agent as input. */
  deliver: 'inbox' | 'turn';
  /** Unset while unread. */
  readAt?: Date;
}

/** A live session by name or id, every live session of a role, or a person. */
export type Recipient = { session: string } | { role: string } | { person: string };

export interface SendOptions extends CallOptions {
  threadId?: string;
  /** "inbox" (default) or "turn". */
  deliver?: 'inbox' | 'turn';
}

/** The project's context bus, as the client's caller (a person of its token's project). */
export interface ContextBus {
  /** Posts; not retried (a retry after a lost answer would post twice). */
  post(opts: PostOptions): Promise<ContextPost>;
  read(opts?: ReadOptions): Promise<ContextPage>;
  /** Records that the caller has seen the posts; returns how many were new. */
  ack(postIds: number[], opts?: CallOptions): Promise<number>;
}

/** Messages to and from the client's caller. */
export interface Messages {
  /** Sends; one message per recipient (a role may be several). Not retried. */
  send(to: Recipient, content: string, opts?: SendOptions): Promise<BridgeMessage[]>;
  /** Answers a message of the caller's inbox: to its sender, in its thread. */
  reply(messageId: number, content: string, opts?: SendOptions): Promise<BridgeMessage>;
  /** The caller's inbox, unread first; what it returns unread is read from then on. */
  list(opts?: CallOptions & { limit?: number; unreadOnly?: boolean }): Promise<BridgeMessage[]>;
}

const party = (p: Proto.Party | undefined): Party => ({
  kind: p?.kind === 'session' ? 'session' : 'person',
  id: p?.id ?? '',
  name: p?.name ?? '',
  role: p?.role ?? '',
});

const postFrom = (p: Proto.ContextPost | undefined): ContextPost => ({
  id: Number(p?.id ?? 0n),
  from: party(p?.from),
  postedAt: p?.postedAt ?? new Date(0),
  category: p?.category ?? '',
  priority: (p?.priority || 'info') as Priority,
  content: p?.content ?? '',
  targets: p?.targets ?? [],
  threadId: p?.threadId ?? '',
  replyTo: Number(p?.replyTo ?? 0n),
  metadata: p?.metadata ?? {},
});

const messageFrom = (m: Proto.BridgeMessage): BridgeMessage => ({
  id: Number(m.id),
  from: party(m.from),
  to: party(m.to),
  sentAt: m.sentAt ?? new Date(0),
  content: m.content,
  threadId: m.threadId,
  replyTo: Number(m.replyTo),
  deliver: m.deliver === 'turn' ? 'turn' : 'inbox',
  ...(m.readAt ? { readAt: m.readAt } : {}),
});

/** The context bus of a client's calls. */
export function contextBus(unary: Unary): ContextBus {
  return {
    async post(o) {
      const res = await unary(
        'postContext',
        {
          category: o.category,
          priority: o.priority ?? 'info',
          content: o.content,
          targets: o.targets ?? [],
          threadId: o.threadId ?? '',
          replyTo: BigInt(o.replyTo ?? 0),
          metadata: o.metadata ?? {},
        },
        o,
        false,
      );
      return postFrom(res.post);
    },
    async read(o = {}) {
      const res = await unary(
        'readContext',
        {
          afterId: BigInt(o.afterId ?? 0),
          since: o.since,
          category: o.category ?? '',
          source: o.source ?? '',
          threadId: o.threadId ?? '',
          unacked: o.unacked ?? false,
          limit: o.limit ?? 0,
        },
        o,
      );
      return { posts: res.posts.map(postFrom), cursor: Number(res.cursor) };
    },
    async ack(postIds, o = {}) {
      return (await unary('ackContext', { postIds: postIds.map((id) => BigInt(id)) }, o)).acked;
    },
  };
}

/** The messages of a client's calls. */
export function messages(unary: Unary): Messages {
  const send = async (req: Partial<Proto.SendMessageRequest>, content: string, o: SendOptions) => {
    const res = await unary(
      'sendMessage',
      {
        ...req,
        content,
        threadId: o.threadId ?? '',
        deliver: o.deliver ?? 'inbox',
        replyTo: req.replyTo ?? 0n,
      },
      o,
      false,
    );
    return res.messages.map(messageFrom);
  };
  return {
    send: (to, content, o = {}) => send(to, content, o),
    async reply(messageId, content, o = {}) {
      const [m] = await send({ replyTo: BigInt(messageId) }, content, o);
      return m!;
    },
    async list(o = {}) {
      const res = await unary(
        'listMessages',
        { limit: o.limit ?? 0, unreadOnly: o.unreadOnly ?? false },
        o,
        false,
      );
      return res.messages.map(messageFrom);
    },
  };
}

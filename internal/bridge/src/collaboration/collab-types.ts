/**
 * Who writes to the context bus or sends a message: a session of the
 * project (an agent, through its tools) or a person (a control plane's
 * caller, by its token's subject). The bridge sets it from the caller's
 * credentials, never from what the caller says.
 */
export interface Party {
  kind: 'session' | 'person';
  /** The session id, or the person's token subject. */
  id: string;
  /** The session's name ('' when unnamed), or the person's subject. */
  name: string;
  /** The session's role; '' for a person or a session without one. */
  role: string;
}

export type Priority = 'info' | 'high' | 'urgent';
export const PRIORITIES: readonly Priority[] = ['info', 'high', 'urgent'];

/** How a message reaches a session: kept in its inbox, or given to the agent as a turn too. */
export type Delivery = 'inbox' | 'turn';
export const DELIVERIES: readonly Delivery[] = ['inbox', 'turn'];

/** What a poster says; the bridge adds who, when and the id. */
export interface PostDraft {
  category: string;
  priority: Priority;
  content: string;
  /** Session names or roles it is meant for; empty: everyone in the project. */
  targets: string[];
  /** '' for none. */
  threadId: string;
  /** The id of the post this answers; 0 for none. */
  replyTo: number;
  metadata: Record<string, string>;
}

/** A post on a project's context bus. */
export interface Post extends PostDraft {
  /** From 1 within its project, in the order posted: the readers' cursor. */
  id: number;
  projectId: string;
  from: Party;
  /** When it was posted, ms since the epoch. */
  at: number;
  /**
   * Where a post made on another daemon of the fleet came from (its
   * daemon, history and id there: `FleetPost.origin`); absent for one
   * made here.
   */
  origin?: string;
}

/** What `read` returns: the matching posts and where the next read starts. */
export interface PostPage {
  posts: Post[];
  /** The id of the last post looked at: pass it as `afterId` to read on. */
  cursor: number;
}

export interface ReadQuery {
  /** Only posts after this id. */
  afterId?: number;
  /** Only posts made at or after this time (ms since the epoch). */
  since?: number;
  category?: string;
  /** Only posts of this author: a session name or id, or a person's subject. */
  source?: string;
  threadId?: string;
  /** Only posts the reader has not acknowledged. */
  unacked?: boolean;
  /** At most this many posts (1 to LIMITS.readMax; default LIMITS.readDefault). */
  limit?: number;
}

/** A message from one party to one session (or person). */
export interface Message {
  /** From 1 within its project, in the order sent. */
  id: number;
  projectId: string;
  from: Party;
  to: Party;
  at: number;
  content: string;
  /** The thread it belongs to: its own id as text when it starts one. */
  threadId: string;
  /** The message it answers; 0 for none. */
  replyTo: number;
  deliver: Delivery;
  /** When its recipient read it (inbox, or given as a turn); absent while unread. */
  readAt?: number;
  /** Where a message sent on another daemon of the fleet came from (`FleetMessage.origin`); absent for one sent here. */
  origin?: string;
}

/** Where a message goes: one session by name or id, every live session of a role, or a person. */
export type Recipient = { session: string } | { role: string } | { person: string };

export interface MessageDraft {
  to: Recipient;
  content: string;
  /** '' starts a thread (or follows the answered message's). */
  threadId: string;
  deliver: Delivery;
}

/** The bounds every post, message and query is held to (docs/collaboration.md lists them). */
export const LIMITS = {
  /** Bytes of UTF-8 in a post's or message's content. */
  contentBytes: 16 * 1024,
  /** Characters of a category, like a session name. */
  categoryChars: 64,
  targets: 16,
  /** Bytes of a thread id. */
  threadIdBytes: 128,
  metadataEntries: 32,
  metadataKeyChars: 64,
  metadataValueBytes: 1024,
  readDefault: 50,
  readMax: 200,
  /** The longest `wait_for_message`. */
  waitMaxMs: 300_000,
  /** Posts and messages kept per project: the oldest go first. */
  keptPerProject: 10_000,
} as const;

/** A party as a key: acks and inboxes are kept per key. */
export const partyKey = (p: Pick<Party, 'kind' | 'id'>): string => `${p.kind}:${p.id}`;

/** A live session of a project as others see it (`who`). */
export interface Member {
  sessionId: string;
  name: string;
  role: string;
  provider: string;
  repoPath: string;
  status: string;
  /** When it last recorded an event, ms since the epoch. */
  lastActivityAt: number;
}

/** The project's live sessions, from the session table. */
export interface Directory {
  members(projectId: string): Member[];
}

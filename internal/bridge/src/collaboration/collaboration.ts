import type { AgentEvent, ToolServer } from '@agent-bridge/providers';
import type { Audit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import { type BucketLimit, TokenBuckets } from '../limits/token-buckets.js';
import { AgentCapabilities } from './agent-capabilities.js';
import { toolList } from './agent-tools.js';
import type { CollabOps, SessionsView, ToolAttachment, ToolServers } from './collab-ports.js';
import type { CollabStore } from './collab-store.js';
import type {
  Member,
  Message,
  MessageDraft,
  Party,
  Post,
  PostDraft,
  PostPage,
  ReadQuery,
} from './collab-types.js';
import { ContextBoard } from './context-board.js';
import type { CollabRelay, FleetMessage, FleetPost } from './fleet-posts.js';
import { Mailboxes } from './mailboxes.js';

export interface CollaborationDeps {
  store: CollabStore;
  clock: Clock;
  timers: Timers;
  audit: Audit;
  sessions: SessionsView;
  /** Posts and messages each author may make (one allowance for both). */
  rate: BucketLimit;
  /** How agents get their tools; none: agents get none (people still post and send). */
  toolServers?: ToolServers | undefined;
  /** Whether a provider's agents get the tools (`collaboration: on|off`); absent: all do. */
  wantsTools?: ((providerId: string) => boolean) | undefined;
  /** In a fleet: where posts made here go to the other daemons. */
  relay?: CollabRelay | undefined;
}

/** The default allowance of posts and messages per author. */
export const COLLAB_RATE: BucketLimit = { perMinute: 60, burst: 20 };

const who = (p: Party) => p.name || p.id;

/**
 * The context bus and messages of every project, as sessions and people
 * use them: each post and message kept (ContextBoard, Mailboxes), recorded
 * as an event on the sessions involved, audited, and a message with
 * `deliver: turn` given to its session's agent as input.
 */
export class Collaboration implements CollabOps, ToolAttachment {
  private readonly board: ContextBoard;
  private readonly mail: Mailboxes;
  /** What sessions' agents call their tools with. */
  readonly capabilities: AgentCapabilities;

  constructor(private readonly deps: CollaborationDeps) {
    const kept = deps.store.load();
    const rate = new TokenBuckets(deps.rate, deps.clock);
    this.board = new ContextBoard({ store: deps.store, clock: deps.clock, rate }, kept);
    this.mail = new Mailboxes(
      {
        store: deps.store,
        clock: deps.clock,
        timers: deps.timers,
        rate,
        directory: deps.sessions,
        onSent: (m) => this.sent(m),
      },
      kept.messages,
    );
    this.capabilities = new AgentCapabilities(this, deps.sessions);
  }

  /**
   * The tool server of a session's agent, with a new capability; both end
   * with `lifetime` (the session's). Undefined when the daemon gives agents
   * no tools, or not this provider's (`collaboration: off`).
   */
  attachTools(
    { id: sessionId, projectId, provider }: { id: string; projectId: string; provider: string },
    lifetime: AbortSignal,
  ): ToolServer | undefined {
    const servers = this.deps.toolServers;
    if (!servers || lifetime.aborted || this.deps.wantsTools?.(provider) === false)
      return undefined;
    const server = {
      ...servers.attach(sessionId, this.capabilities.issue(sessionId, projectId)),
      tools: toolList().map((t) => t.name),
    };
    lifetime.addEventListener(
      'abort',
      () => {
        this.capabilities.revoke(sessionId);
        servers.detach(sessionId);
      },
      { once: true },
    );
    return server;
  }

  async post(projectId: string, from: Party, draft: PostDraft): Promise<Post> {
    const post = await this.board.post(projectId, from, draft);
    this.announce(post, 'context_posted');
    this.relay(post);
    return post;
  }

  /**
   * A post made on another daemon of the fleet: held and numbered here, and
   * recorded on this daemon's sessions it involves, as one made here.
   * Nothing when it is held already, or has no fleet to come from.
   */
  async importPost(p: FleetPost): Promise<void> {
    const relay = this.deps.relay;
    if (!relay) return;
    const post = await this.board.import(p, relay.self);
    if (post) this.announce(post, 'context_imported');
  }

  /**
   * Gives the fleet every post made here and every message sent here to a
   * session of another daemon that this daemon holds (after a start: the
   * fleet drops repeats).
   */
  relayAll(): void {
    for (const post of this.board.madeHere()) this.relay(post);
    for (const m of this.mail.madeHere()) {
      if (m.to.kind !== 'session' || !this.deps.sessions.isHere(m.to.id)) this.relayMessage(m);
    }
  }

  private relay(post: Post): void {
    const relay = this.deps.relay;
    if (!relay) return;
    const { id, replyTo, origin: _, ...rest } = post;
    relay.posted({
      ...rest,
      origin: `${relay.self}/${id}`,
      replyTo: this.board.ref(post.projectId, replyTo, relay.self),
    });
  }

  /** The CONTEXT_POSTED event on the sessions a post involves, and its audit record. */
  private announce(post: Post, reason: string): void {
    const { from, projectId } = post;
    const ev: AgentEvent = {
      type: 'CONTEXT_POSTED',
      stream: 'system',
      text: post.content,
      data: {
        post_id: post.id,
        category: post.category,
        priority: post.priority,
        from: who(from),
        from_kind: from.kind,
        from_role: from.role,
        targets: post.targets,
        thread_id: post.threadId,
        reply_to: post.replyTo,
        metadata: post.metadata,
      },
    };
    const involved = new Set<string>(from.kind === 'session' ? [from.id] : []);
    if (post.targets.length > 0) {
      for (const m of this.deps.sessions.members(projectId)) {
        if (post.targets.includes(m.name) || post.targets.includes(m.role))
          involved.add(m.sessionId);
      }
    }
    for (const id of involved) this.deps.sessions.record(id, ev);
    this.audit(projectId, from, reason, `post ${post.id} (${post.category})`);
  }

  read(projectId: string, reader: Party, query: ReadQuery): PostPage {
    return this.board.read(projectId, reader, query);
  }

  ack(projectId: string, reader: Party, ids: readonly number[]): Promise<number> {
    return this.board.ack(projectId, reader, ids);
  }

  send(projectId: string, from: Party, draft: MessageDraft): Promise<Message[]> {
    return this.mail.send(projectId, from, draft);
  }

  reply(projectId: string, reader: Party, id: number, content: string, deliver?: 'inbox' | 'turn') {
    return this.mail.reply(projectId, reader, id, content, deliver);
  }

  inbox(projectId: string, reader: Party, opts: { limit?: number; unreadOnly?: boolean }) {
    return this.mail.inbox(projectId, reader, opts);
  }

  waitForMessage(projectId: string, reader: Party, ms: number, signal: AbortSignal) {
    return this.mail.waitForMessage(projectId, reader, ms, signal);
  }

  /** Messages a party sent or received, newest first. */
  messages(projectId: string, party: Party, limit: number): Message[] {
    return this.mail.involving(projectId, party, limit);
  }

  /** The project's live sessions. */
  who(projectId: string): Member[] {
    return this.deps.sessions.members(projectId);
  }

  /**
   * A message is committed: the events on both ends, the audit, a turn if
   * asked for; a message to a session of another daemon of the fleet goes
   * there, where it is received.
   */
  private sent(m: Message): void {
    if (m.from.kind === 'session') {
      this.deps.sessions.record(m.from.id, {
        type: 'MESSAGE_SENT',
        stream: 'system',
        text: m.content,
        data: { ...messageData(m), to: who(m.to), to_kind: m.to.kind },
      });
    }
    this.audit(m.projectId, m.from, 'message_sent', `message ${m.id} to ${m.to.kind} ${who(m.to)}`);
    // A person reads their inbox on any daemon of the fleet: it goes to all.
    if (m.to.kind !== 'session') this.relayMessage(m);
    else if (this.deps.sessions.isHere(m.to.id)) this.received(m);
    else this.relayMessage(m);
  }

  /**
   * A message sent on another daemon of the fleet to a session here, or to
   * a person: held in the inbox, received as one sent here. Nothing when
   * it is held already, or its session is not here.
   */
  async importMessage(m: FleetMessage): Promise<void> {
    const relay = this.deps.relay;
    const forHere = m.to.kind === 'person' || this.deps.sessions.isHere(m.to.id);
    if (!relay || !forHere) return;
    const message = await this.mail.import(m, relay.self);
    if (message && message.to.kind === 'session') this.received(message);
  }

  /** A message for a session here: its event, and its agent's turn if asked for. */
  private received(m: Message): void {
    this.deps.sessions.record(m.to.id, {
      type: 'MESSAGE_RECEIVED',
      stream: 'system',
      text: m.content,
      data: {
        ...messageData(m),
        from: who(m.from),
        from_kind: m.from.kind,
        from_role: m.from.role,
      },
    });
    if (m.deliver !== 'turn') return;
    const role = m.from.role ? ` (${m.from.role})` : '';
    const text = `Message ${m.id} from ${who(m.from)}${role} through the bridge:\n\n${m.content}\n\n(Answer it with the message_reply tool, message_id ${m.id}.)`;
    if (this.deps.sessions.deliver(m.to.id, text, `message:${m.id}`)) {
      void this.mail.markRead([m]).catch(() => undefined);
    }
  }

  private relayMessage(m: Message): void {
    const relay = this.deps.relay;
    if (!relay) return;
    relay.sent({
      origin: `${relay.self}/m${m.id}`,
      projectId: m.projectId,
      from: m.from,
      to: m.to,
      at: m.at,
      content: m.content,
      threadId: m.threadId,
      replyTo: this.mail.ref(m.projectId, m.replyTo, relay.self),
      deliver: m.deliver,
    });
  }

  private audit(projectId: string, from: Party, reason: string, detail: string): void {
    this.deps.audit({
      kind: 'collab',
      outcome: 'ok',
      reason,
      projectId,
      detail,
      ...(from.kind === 'session' ? { sessionId: from.id } : { identity: { sub: from.id } }),
    });
  }
}

/** What the MESSAGE_SENT and MESSAGE_RECEIVED events of a message share. */
const messageData = (m: Message) => ({
  message_id: m.id,
  thread_id: m.threadId,
  reply_to: m.replyTo,
  deliver: m.deliver,
});

import type { AgentEvent, ToolServer } from '@agent-bridge/providers';
import type { Audit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import { type BucketLimit, TokenBuckets } from '../limits/token-buckets.js';
import { AgentCapabilities } from './agent-capabilities.js';
import { toolList } from './agent-tools.js';
import type { CollabOps, SessionsView, ToolAttachment, ToolServers } from './collab-ports.js';
import type { CollabStore } from './collab-store.js';
import type {
  Message,
  MessageDraft,
  Party,
  Post,
  PostDraft,
  PostPage,
  ReadQuery,
} from './collab-types.js';
import { ContextBoard } from './context-board.js';
import { Mailboxes, type Member } from './mailboxes.js';

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
    this.audit(projectId, from, 'context_posted', `post ${post.id} (${post.category})`);
    return post;
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

  /** A message is committed: the events on both ends, the audit, a turn if asked for. */
  private sent(m: Message): void {
    const common = {
      message_id: m.id,
      thread_id: m.threadId,
      reply_to: m.replyTo,
      deliver: m.deliver,
    };
    if (m.from.kind === 'session') {
      this.deps.sessions.record(m.from.id, {
        type: 'MESSAGE_SENT',
        stream: 'system',
        text: m.content,
        data: { ...common, to: who(m.to), to_kind: m.to.kind },
      });
    }
    this.audit(m.projectId, m.from, 'message_sent', `message ${m.id} to ${m.to.kind} ${who(m.to)}`);
    if (m.to.kind !== 'session') return;
    this.deps.sessions.record(m.to.id, {
      type: 'MESSAGE_RECEIVED',
      stream: 'system',
      text: m.content,
      data: { ...common, from: who(m.from), from_kind: m.from.kind, from_role: m.from.role },
    });
    if (m.deliver !== 'turn') return;
    const role = m.from.role ? ` (${m.from.role})` : '';
    const text = `Message ${m.id} from ${who(m.from)}${role} through the bridge:\n\n${m.content}\n\n(Answer it with the message_reply tool, message_id ${m.id}.)`;
    if (this.deps.sessions.deliver(m.to.id, text, `message:${m.id}`)) {
      void this.mail.markRead([m]).catch(() => undefined);
    }
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

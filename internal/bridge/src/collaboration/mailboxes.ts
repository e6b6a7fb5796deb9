import type { Clock, Timers } from '../clock.js';
import { BridgeError, invalid } from '../errors.js';
import type { TokenBuckets } from '../limits/token-buckets.js';
import { isSessionId, preview } from '../validate.js';
import { checkLimit, checkMessageDraft, checkWait } from './check-collab.js';
import type { CollabStore } from './collab-store.js';
import {
  type Delivery,
  type Directory,
  LIMITS,
  type Member,
  type Message,
  type MessageDraft,
  type Party,
  partyKey,
} from './collab-types.js';
import { spend } from './context-board.js';

import { FleetOrigins } from './fleet-origins.js';
import type { FleetMessage } from './fleet-posts.js';

export interface MailboxesDeps {
  store: CollabStore;
  clock: Clock;
  timers: Timers;
  rate: TokenBuckets;
  directory: Directory;
  /** Hears each message once it is committed: the core records it and delivers turns. */
  onSent?: (message: Message) => void;
}

export const memberParty = (m: Member): Party => ({
  kind: 'session',
  id: m.sessionId,
  name: m.name,
  role: m.role,
});

/**
 * Messages between the parties of each project: sent to a live session (by
 * name or id), to every live session of a role, or to a person; read from
 * an inbox (unread first), answered, waited for. The newest
 * LIMITS.keptPerProject messages of a project are kept.
 */
export class Mailboxes {
  private readonly projects = new Map<string, { messages: Message[]; nextId: number }>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly imported = new FleetOrigins('m');

  constructor(
    private readonly deps: MailboxesDeps,
    kept: readonly Message[] = [],
  ) {
    for (const m of kept) {
      const p = this.project(m.projectId);
      p.messages.push(m);
      p.nextId = Math.max(p.nextId, m.id + 1);
      if (m.origin) this.imported.set(m.projectId, m.origin, m.id);
    }
  }

  /**
   * Holds a message sent on another daemon of the fleet to a session here,
   * numbered here, the message it answers resolved to its id here. Resolves
   * with it once committed (its recipient's waiters woken); undefined when
   * it is held already.
   */
  async import(m: FleetMessage, self: string): Promise<Message | undefined> {
    if (this.imported.has(m.projectId, m.origin) || m.origin.startsWith(`${self}/`))
      return undefined;
    const p = this.project(m.projectId);
    const message: Message = {
      ...m,
      id: p.nextId++,
      replyTo: this.imported.resolve(m.projectId, m.replyTo, self),
    };
    p.messages.push(message);
    this.imported.set(m.projectId, m.origin, message.id);
    this.trim(m.projectId, p);
    await this.deps.store.putMessage(message);
    this.wake(partyKey(message.to));
    return message;
  }

  /** A message's identity across the fleet: its origin, or this daemon's for one sent here. */
  ref(projectId: string, id: number, self: string): string {
    if (id === 0) return '';
    const m = this.project(projectId).messages.find((x) => x.id === id);
    return m?.origin ?? this.imported.own(self, id);
  }

  /** The messages sent here that this daemon holds, oldest first. */
  *madeHere(): Generator<Message> {
    for (const p of this.projects.values()) for (const m of p.messages) if (!m.origin) yield m;
  }

  /** Sends `draft` from `from`; resolves with one message per recipient once committed. */
  async send(projectId: string, from: Party, draft: MessageDraft, replyTo = 0): Promise<Message[]> {
    const d = checkMessageDraft(draft);
    const to = this.recipients(projectId, from, d);
    spend(this.deps.rate, projectId, from);
    const p = this.project(projectId);
    const at = this.deps.clock.now();
    const sent = to.map((recipient): Message => {
      const id = p.nextId++;
      return {
        id,
        projectId,
        from,
        to: recipient,
        at,
        content: d.content,
        threadId: d.threadId || String(id),
        replyTo,
        deliver: d.deliver,
      };
    });
    p.messages.push(...sent);
    this.trim(projectId, p);
    await Promise.all(sent.map((m) => this.deps.store.putMessage(m)));
    for (const m of sent) {
      this.deps.onSent?.(m);
      this.wake(partyKey(m.to));
    }
    return sent;
  }

  /** Answers message `id` of `reader`'s inbox: to its sender, in its thread. */
  async reply(
    projectId: string,
    reader: Party,
    id: number,
    content: string,
    deliver: Delivery = 'inbox',
  ): Promise<Message> {
    const original = this.project(projectId).messages.find(
      (m) => m.id === id && partyKey(m.to) === partyKey(reader),
    );
    if (!original) {
      throw new BridgeError(
        'not_found',
        `no message ${id} in your inbox`,
        'collab_message_not_found',
      );
    }
    const to =
      original.from.kind === 'person'
        ? { person: original.from.id }
        : { session: original.from.id };
    const [sent] = await this.send(
      projectId,
      reader,
      { to, content, threadId: original.threadId, deliver },
      original.id,
    );
    return sent!;
  }

  /**
   * `reader`'s messages, unread first (oldest first), then read ones
   * (newest first), at most `limit`; those returned unread are read from
   * now on (committed before this resolves), but shown as they were: unread.
   */
  async inbox(
    projectId: string,
    reader: Party,
    opts: { limit?: number; unreadOnly?: boolean } = {},
  ): Promise<Message[]> {
    const limit = checkLimit(opts.limit);
    const mine = this.addressedTo(projectId, reader);
    const unread = mine.filter((m) => m.readAt === undefined).slice(0, limit);
    const read = opts.unreadOnly
      ? []
      : mine
          .filter((m) => m.readAt !== undefined)
          .reverse()
          .slice(0, limit - unread.length);
    const shown = [...unread.map((m) => ({ ...m })), ...read];
    await this.markRead(unread);
    return shown;
  }

  /**
   * Resolves with `reader`'s oldest unread message (left unread), as soon
   * as there is one; undefined after `ms` or when `signal` aborts.
   */
  async waitForMessage(
    projectId: string,
    reader: Party,
    ms: number,
    signal: AbortSignal,
  ): Promise<Message | undefined> {
    checkWait(ms);
    const key = partyKey(reader);
    const first = () => this.addressedTo(projectId, reader).find((m) => m.readAt === undefined);
    const now = first();
    if (now || ms === 0 || signal.aborted) return now;
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, set);
      const ended = new AbortController();
      const done = () => {
        ended.abort();
        signal.removeEventListener('abort', done);
        set.delete(check);
        if (set.size === 0) this.waiters.delete(key);
        resolve(first());
      };
      const check = () => {
        if (first()) done();
      };
      this.deps.timers.after(ms, done, ended.signal);
      signal.addEventListener('abort', done, { once: true });
      set.add(check);
    });
  }

  /** Marks messages read (given to their session as a turn, or shown in an inbox). */
  async markRead(messages: readonly Message[]): Promise<void> {
    const at = this.deps.clock.now();
    const fresh = messages.filter((m) => m.readAt === undefined);
    for (const m of fresh) m.readAt = at;
    await Promise.all(fresh.map((m) => this.deps.store.putMessage(m)));
  }

  /** Messages a party sent or received, newest first (what a person lists). */
  involving(projectId: string, party: Party, limit: number): Message[] {
    const key = partyKey(party);
    const out: Message[] = [];
    const all = this.project(projectId).messages;
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
      const m = all[i]!;
      if (partyKey(m.to) === key || partyKey(m.from) === key) out.push(m);
    }
    return out;
  }

  private addressedTo(projectId: string, reader: Party): Message[] {
    const key = partyKey(reader);
    return this.project(projectId).messages.filter((m) => partyKey(m.to) === key);
  }

  private recipients(projectId: string, from: Party, d: MessageDraft): Party[] {
    if ('person' in d.to) return [{ kind: 'person', id: d.to.person, name: d.to.person, role: '' }];
    const members = this.deps.directory.members(projectId);
    const self = (m: Member) => from.kind === 'session' && m.sessionId === from.id;
    if ('role' in d.to) {
      const role = d.to.role;
      const found = members.filter((m) => m.role === role && !self(m));
      if (found.length === 0) {
        throw new BridgeError(
          'not_found',
          `no other live session of this project has the role ${preview(role)}`,
          'collab_recipient_not_found',
        );
      }
      return found.map(memberParty);
    }
    const to = d.to.session;
    const found = members.find((m) => (isSessionId(to) ? m.sessionId === to : m.name === to));
    if (!found) {
      throw new BridgeError(
        'not_found',
        `no live session ${preview(to)} in this project`,
        'collab_recipient_not_found',
      );
    }
    if (self(found)) throw invalid('a session cannot message itself', 'collab_to_self');
    return [memberParty(found)];
  }

  private wake(key: string): void {
    for (const check of [...(this.waiters.get(key) ?? [])]) check();
  }

  private trim(projectId: string, p: { messages: Message[] }): void {
    const over = p.messages.length - LIMITS.keptPerProject;
    if (over <= 0) return;
    const dropped = p.messages.splice(0, over);
    for (const m of dropped) if (m.origin) this.imported.delete(projectId, m.origin);
    const gone = dropped.map((m) => m.id);
    this.deps.store.dropMessages(projectId, gone);
  }

  private project(projectId: string) {
    let p = this.projects.get(projectId);
    if (!p) {
      p = { messages: [], nextId: 1 };
      this.projects.set(projectId, p);
    }
    return p;
  }
}

import { BridgeError, invalid } from '../errors.js';
import type { CollabOps } from './collab-ports.js';
import type { Message, Party, Post, Priority } from './collab-types.js';
import { type ArgSpecs, checkArgs, jsonSchemaOf } from './tool-args.js';

/** The wait a `wait_for_message` makes when it names none, in seconds. */
const DEFAULT_WAIT_S = 60;

interface Tool {
  description: string;
  args: ArgSpecs;
  run(c: CollabOps, at: Caller, a: Record<string, unknown>, signal: AbortSignal): unknown;
}

/** Who calls a tool: a session of a project, as its capability says. */
export interface Caller {
  projectId: string;
  me: Party;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const who = (p: Party) => p.name || p.id;

const postOut = (p: Post) => ({
  id: p.id,
  from: who(p.from),
  from_kind: p.from.kind,
  from_role: p.from.role,
  category: p.category,
  priority: p.priority,
  content: p.content,
  targets: p.targets,
  thread_id: p.threadId,
  reply_to: p.replyTo,
  metadata: p.metadata,
  posted_at: new Date(p.at).toISOString(),
});

const messageOut = (m: Message) => ({
  id: m.id,
  from: who(m.from),
  from_kind: m.from.kind,
  from_role: m.from.role,
  to: who(m.to),
  content: m.content,
  thread_id: m.threadId,
  reply_to: m.replyTo,
  sent_at: new Date(m.at).toISOString(),
  read: m.readAt !== undefined,
});

const DELIVER = {
  type: 'string',
  enum: ['inbox', 'turn'],
  description:
    'inbox (default): it waits in their inbox; turn: also given to that agent as its next turn',
} as const;

const TOOLS: Readonly<Record<string, Tool>> = {
  context_post: {
    description:
      "Post to your project's shared context bus: a finding, decision or question the other sessions (and people) of the project can read.",
    args: {
      category: {
        type: 'string',
        required: true,
        description: 'a label: finding, decision, question, … (1-64 of A-Z a-z 0-9 . _ -)',
      },
      content: { type: 'string', required: true, description: 'the text, at most 16 KiB' },
      priority: { type: 'string', enum: ['info', 'high', 'urgent'], description: 'default info' },
      targets: {
        type: 'string[]',
        description: 'session names or roles it is meant for (default: everyone)',
      },
      thread_id: { type: 'string', description: 'a thread to group posts' },
      reply_to: { type: 'integer', description: 'the id of the post this answers' },
      metadata: { type: 'string-map', description: 'string pairs, e.g. {"file": "src/a.ts"}' },
    },
    async run(c, at, a) {
      const post = await c.post(at.projectId, at.me, {
        category: a.category as string,
        content: a.content as string,
        priority: (str(a.priority) ?? 'info') as Priority,
        targets: (a.targets as string[] | undefined) ?? [],
        threadId: str(a.thread_id) ?? '',
        replyTo: (a.reply_to as number | undefined) ?? 0,
        metadata: (a.metadata as Record<string, string> | undefined) ?? {},
      });
      return { post_id: post.id, posted_at: new Date(post.at).toISOString() };
    },
  },
  context_read: {
    description:
      "Read your project's context bus, oldest first: what is meant for everyone, for your name or role, and your own posts. Pass the returned cursor as after_id to read on.",
    args: {
      after_id: { type: 'integer', description: 'only posts after this id (the last cursor)' },
      since: { type: 'string', description: 'only posts made at or after this time (ISO 8601)' },
      category: { type: 'string', description: 'only this category' },
      source: { type: 'string', description: 'only posts of this author (a session name or id)' },
      thread_id: { type: 'string', description: 'only this thread' },
      unacked: { type: 'boolean', description: 'only posts you have not acknowledged' },
      limit: { type: 'integer', description: '1-200, default 50' },
    },
    run(c, at, a) {
      const since = str(a.since);
      const ms = since === undefined ? undefined : Date.parse(since);
      if (ms !== undefined && Number.isNaN(ms)) {
        throw invalid('context_read: since must be an ISO 8601 time', 'tool_args_invalid');
      }
      const page = c.read(at.projectId, at.me, {
        afterId: (a.after_id as number | undefined) ?? 0,
        ...(ms === undefined ? {} : { since: ms }),
        category: str(a.category) ?? '',
        source: str(a.source) ?? '',
        threadId: str(a.thread_id) ?? '',
        unacked: a.unacked === true,
        limit: (a.limit as number | undefined) ?? 0,
      });
      return { posts: page.posts.map(postOut), cursor: page.cursor };
    },
  },
  context_ack: {
    description: 'Acknowledge posts you have read, so context_read with unacked leaves them out.',
    args: { post_ids: { type: 'integer[]', required: true, description: 'the ids of the posts' } },
    async run(c, at, a) {
      return { acked: await c.ack(at.projectId, at.me, a.post_ids as number[]) };
    },
  },
  message_send: {
    description:
      'Send a message to another session of your project (by name or id), to every session of a role, or to a person.',
    args: {
      to: { type: 'string', description: 'a live session, by name or id' },
      to_role: { type: 'string', description: 'every other live session with this role' },
      to_person: { type: 'string', description: 'a person, by their id (a token subject)' },
      content: { type: 'string', required: true, description: 'the text, at most 16 KiB' },
      thread_id: { type: 'string', description: 'the thread it belongs to' },
      deliver: DELIVER,
    },
    async run(c, at, a) {
      const given = (['to', 'to_role', 'to_person'] as const).filter((k) => a[k] !== undefined);
      if (given.length !== 1) {
        throw invalid(
          'message_send: give exactly one of to, to_role, to_person',
          'tool_args_invalid',
        );
      }
      const to =
        a.to !== undefined
          ? { session: a.to as string }
          : a.to_role !== undefined
            ? { role: a.to_role as string }
            : { person: a.to_person as string };
      const sent = await c.send(at.projectId, at.me, {
        to,
        content: a.content as string,
        threadId: str(a.thread_id) ?? '',
        deliver: (str(a.deliver) ?? 'inbox') as 'inbox' | 'turn',
      });
      return { message_ids: sent.map((m) => m.id), to: sent.map((m) => who(m.to)) };
    },
  },
  inbox: {
    description:
      'Your messages: unread first (oldest first), then read ones (newest first). The unread ones shown count as read from then on.',
    args: {
      limit: { type: 'integer', description: '1-200, default 50' },
      unread_only: { type: 'boolean', description: 'only unread messages' },
    },
    async run(c, at, a) {
      const list = await c.inbox(at.projectId, at.me, {
        limit: (a.limit as number | undefined) ?? 0,
        unreadOnly: a.unread_only === true,
      });
      return { messages: list.map(messageOut) };
    },
  },
  message_reply: {
    description: 'Answer a message of your inbox: it goes to its sender, in its thread.',
    args: {
      message_id: { type: 'integer', required: true, description: 'the message to answer' },
      content: { type: 'string', required: true, description: 'the text, at most 16 KiB' },
      deliver: DELIVER,
    },
    async run(c, at, a) {
      const m = await c.reply(
        at.projectId,
        at.me,
        a.message_id as number,
        a.content as string,
        (str(a.deliver) ?? 'inbox') as 'inbox' | 'turn',
      );
      return { message_id: m.id, to: who(m.to) };
    },
  },
  wait_for_message: {
    description:
      'Wait until a message arrives in your inbox (returns at once when one is unread), for at most timeout_seconds; returns null when none came. It does not mark it read.',
    args: { timeout_seconds: { type: 'integer', description: `0-300, default ${DEFAULT_WAIT_S}` } },
    async run(c, at, a, signal) {
      const s = (a.timeout_seconds as number | undefined) ?? DEFAULT_WAIT_S;
      const m = await c.waitForMessage(at.projectId, at.me, s * 1000, signal);
      return { message: m ? messageOut(m) : null };
    },
  },
  who: {
    description:
      'The live sessions of your project: name, role, provider, repository, status, last activity.',
    args: {},
    run(c, at) {
      return {
        sessions: c.who(at.projectId).map((m) => ({
          id: m.sessionId,
          name: m.name,
          role: m.role,
          provider: m.provider,
          repo: m.repoPath,
          status: m.status,
          last_activity: new Date(m.lastActivityAt).toISOString(),
          you: m.sessionId === at.me.id,
        })),
      };
    },
  },
};

/** The tools an agent is given, as MCP lists them (name, description, input schema). */
export function toolList(): {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}[] {
  return Object.entries(TOOLS).map(([name, t]) => ({
    name,
    description: t.description,
    inputSchema: jsonSchemaOf(t.args),
  }));
}

/**
 * Runs tool `name` for `at` with `args` (checked first): its JSON result.
 * Refusals are BridgeErrors; an unknown tool is NOT_FOUND.
 */
export async function callTool(
  c: CollabOps,
  at: Caller,
  name: string,
  args: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (!tool) {
    throw new BridgeError(
      'not_found',
      `no tool ${JSON.stringify(name.slice(0, 64))}`,
      'tool_unknown',
    );
  }
  return tool.run(c, at, checkArgs(name, tool.args, args ?? {}), signal);
}

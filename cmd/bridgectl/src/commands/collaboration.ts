import type { BridgeMessage, ContextPost, Recipient } from '@agent-bridge/bridgeclient';
import { CliError, type Command } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';

const who = (p: { name: string; id: string }) => p.name || p.id;

const postLine = (p: ContextPost) =>
  `#${p.id} ${p.postedAt.toISOString()} ${who(p.from)} ${p.category}/${p.priority}${p.targets.length ? ` → ${p.targets.join(',')}` : ''}${p.threadId ? ` [${p.threadId}]` : ''}: ${p.content}`;

const messageLine = (m: BridgeMessage) =>
  `#${m.id} ${m.sentAt.toISOString()} ${who(m.from)} → ${who(m.to)}${m.readAt ? '' : ' (unread)'} [${m.threadId}]: ${m.content}`;

/** A non-negative whole number from an option or argument, or a usage error. */
function count(value: string | undefined, what: string, command: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new CliError(EXIT.usage, `${command}: ${what} wants a number, not "${value}"`);
  return Number(value);
}

const contextPostCommand: Command<CtlIo> = {
  name: 'context post',
  summary: "post to the project's context bus, as your token's subject",
  usage:
    'bridgectl context post CATEGORY TEXT [--priority info|high|urgent] [--target NAME_OR_ROLE]... [--thread ID] [--reply-to POST_ID] [--meta KEY=VALUE]...',
  options: {
    priority: {
      type: 'string',
      value: 'LEVEL',
      description: 'info (default), high or urgent',
      choices: ['info', 'high', 'urgent'],
    },
    target: {
      type: 'string',
      value: 'NAME',
      multiple: true,
      description: 'a session name or role it is meant for (default: everyone)',
    },
    thread: { type: 'string', value: 'ID', description: 'the thread it belongs to' },
    'reply-to': { type: 'string', value: 'POST_ID', description: 'the post it answers' },
    meta: { type: 'string', value: 'KEY=VALUE', multiple: true, description: 'a metadata pair' },
  },
  notes: ['The output is the post, with its id (the cursor `context read --after` takes).'],
  positionals: { min: 2, max: 2 },
  async run(ctx) {
    const [category, content] = ctx.positionals as [string, string];
    const metadata: Record<string, string> = {};
    for (const item of (ctx.values.meta as string[] | undefined) ?? []) {
      const eq = item.indexOf('=');
      if (eq <= 0)
        throw new CliError(EXIT.usage, `context post: --meta wants KEY=VALUE, not "${item}"`);
      metadata[item.slice(0, eq)] = item.slice(eq + 1);
    }
    const replyTo = count(
      ctx.values['reply-to'] as string | undefined,
      '--reply-to',
      'context post',
    );
    const post = await withClient(ctx, (c) =>
      c.context.post({
        category,
        content,
        ...(ctx.values.priority
          ? { priority: ctx.values.priority as ContextPost['priority'] }
          : {}),
        targets: (ctx.values.target as string[] | undefined) ?? [],
        ...(ctx.values.thread ? { threadId: ctx.values.thread as string } : {}),
        ...(replyTo ? { replyTo } : {}),
        metadata,
      }),
    );
    return { text: [postLine(post)], json: post };
  },
};

const contextReadCommand: Command<CtlIo> = {
  name: 'context read',
  summary: "read the project's context bus, oldest first",
  usage:
    'bridgectl context read [--after POST_ID] [--category C] [--source NAME] [--thread ID] [--unacked] [--limit N]',
  options: {
    after: {
      type: 'string',
      value: 'POST_ID',
      description: 'only posts after this id (the last cursor)',
    },
    category: { type: 'string', value: 'C', description: 'only this category' },
    source: {
      type: 'string',
      value: 'NAME',
      description: 'only posts of this author (session name or id, or subject)',
    },
    thread: { type: 'string', value: 'ID', description: 'only this thread' },
    unacked: { type: 'boolean', description: 'only posts you have not acknowledged' },
    limit: { type: 'string', value: 'N', description: 'at most N posts (1-200, default 50)' },
  },
  notes: ['The last line is the cursor: pass it as --after to read on.'],
  async run(ctx) {
    const afterId = count(ctx.values.after as string | undefined, '--after', 'context read');
    const limit = count(ctx.values.limit as string | undefined, '--limit', 'context read');
    const page = await withClient(ctx, (c) =>
      c.context.read({
        ...(afterId !== undefined ? { afterId } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(ctx.values.category ? { category: ctx.values.category as string } : {}),
        ...(ctx.values.source ? { source: ctx.values.source as string } : {}),
        ...(ctx.values.thread ? { threadId: ctx.values.thread as string } : {}),
        unacked: ctx.values.unacked === true,
      }),
    );
    return { text: [...page.posts.map(postLine), `cursor ${page.cursor}`], json: page };
  },
};

const contextAckCommand: Command<CtlIo> = {
  name: 'context ack',
  summary: 'acknowledge posts you have seen (context read --unacked leaves them out)',
  usage: 'bridgectl context ack POST_ID...',
  options: {},
  positionals: { min: 1, max: 200 },
  async run(ctx) {
    const ids = ctx.positionals.map((p) => count(p, 'POST_ID', 'context ack') as number);
    const acked = await withClient(ctx, (c) => c.context.ack(ids));
    return { text: [`acked: ${acked} new`], json: { acked } };
  },
};

const messagesSendCommand: Command<CtlIo> = {
  name: 'messages send',
  summary: 'message a live session (by name or id), every session of a role, or a person',
  usage:
    'bridgectl messages send (--to NAME_OR_ID | --role ROLE | --person SUBJECT | --reply-to MESSAGE_ID) TEXT [--turn] [--thread ID]',
  options: {
    to: {
      type: 'string',
      value: 'NAME',
      description: 'a live session of the project, by name or id',
    },
    role: { type: 'string', value: 'ROLE', description: 'every live session with this role' },
    person: { type: 'string', value: 'SUBJECT', description: 'a person, by token subject' },
    'reply-to': {
      type: 'string',
      value: 'MESSAGE_ID',
      description: 'answer a message of your inbox',
    },
    turn: {
      type: 'boolean',
      description: 'also give it to the agent as its next turn (default: its inbox)',
    },
    thread: { type: 'string', value: 'ID', description: 'the thread it belongs to' },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const text = ctx.positionals[0] as string;
    const given = (['to', 'role', 'person', 'reply-to'] as const).filter(
      (k) => ctx.values[k] !== undefined,
    );
    if (given.length !== 1) {
      throw new CliError(
        EXIT.usage,
        'messages send: give exactly one of --to, --role, --person, --reply-to',
      );
    }
    const opts = {
      deliver: ctx.values.turn === true ? ('turn' as const) : ('inbox' as const),
      ...(ctx.values.thread ? { threadId: ctx.values.thread as string } : {}),
    };
    const sent = await withClient(ctx, async (c) => {
      const replyTo = count(
        ctx.values['reply-to'] as string | undefined,
        '--reply-to',
        'messages send',
      );
      if (replyTo !== undefined) return [await c.messages.reply(replyTo, text, opts)];
      const to: Recipient =
        ctx.values.to !== undefined
          ? { session: ctx.values.to as string }
          : ctx.values.role !== undefined
            ? { role: ctx.values.role as string }
            : { person: ctx.values.person as string };
      return c.messages.send(to, text, opts);
    });
    return { text: sent.map(messageLine), json: sent };
  },
};

const messagesListCommand: Command<CtlIo> = {
  name: 'messages list',
  summary: 'your inbox: unread first (they are read from then on), then read ones',
  usage: 'bridgectl messages list [--unread] [--limit N]',
  options: {
    unread: { type: 'boolean', description: 'only unread messages' },
    limit: { type: 'string', value: 'N', description: 'at most N messages (1-200, default 50)' },
  },
  async run(ctx) {
    const limit = count(ctx.values.limit as string | undefined, '--limit', 'messages list');
    const list = await withClient(ctx, (c) =>
      c.messages.list({
        unreadOnly: ctx.values.unread === true,
        ...(limit !== undefined ? { limit } : {}),
      }),
    );
    return { text: list.length ? list.map(messageLine) : ['no messages'], json: list };
  },
};

export const collaborationCommands: readonly Command<CtlIo>[] = [
  contextPostCommand,
  contextReadCommand,
  contextAckCommand,
  messagesSendCommand,
  messagesListCommand,
];

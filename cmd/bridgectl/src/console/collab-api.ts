import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Priority, Recipient } from '@agent-bridge/bridgeclient';
import { field, HttpError, readJson, sendJson } from './http-replies.js';
import type { ProjectTargets } from './project-targets.js';

/** The collaboration handlers' part of the API context. */
interface CollabContext {
  projects: Pick<ProjectTargets, 'of'>;
}

type Handler = (
  ctx: CollabContext,
  req: IncomingMessage,
  res: ServerResponse,
  params: { query: URLSearchParams },
) => Promise<void>;

const PRIORITIES = new Set<Priority>(['info', 'high', 'urgent']);

/** Posts of the project's context bus after `?after=` (0: from the first), a page at a time. */
const readPosts: Handler = async (ctx, _req, res, { query }) => {
  const after = Number(query.get('after') ?? 0);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new HttpError(400, 'after must be a post id (0, 1, 2, …)');
  }
  const { client, daemon } = await ctx.projects.of(query.get('project')).collab();
  sendJson(res, 200, { daemon, ...(await client.context.read({ afterId: after, limit: 200 })) });
};

/** A post as the person the console's credentials name. */
const post: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const { client } = await ctx.projects.of(field(body, 'project', false)).collab();
  const priority = (field(body, 'priority', false) || 'info') as Priority;
  if (!PRIORITIES.has(priority)) {
    throw new HttpError(400, `priority must be one of ${[...PRIORITIES].join(', ')}`);
  }
  const targets = field(body, 'targets', false)
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const posted = await client.context.post({
    category: field(body, 'category'),
    content: field(body, 'content'),
    priority,
    targets,
  });
  sendJson(res, 201, posted);
};

/** The person's inbox, unread first (what it shows is read from then on). */
const inbox: Handler = async (ctx, _req, res, { query }) => {
  const { client } = await ctx.projects.of(query.get('project')).collab();
  sendJson(res, 200, { messages: await client.messages.list({ limit: 100 }) });
};

/** A message to a session (by name or id) or to every live session of a role. */
const send: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const kind = field(body, 'toKind');
  const to = field(body, 'to');
  const recipient: Recipient =
    kind === 'session' ? { session: to } : kind === 'role' ? { role: to } : { person: to };
  if (!['session', 'role', 'person'].includes(kind)) {
    throw new HttpError(400, 'toKind must be session, role or person');
  }
  const deliver = field(body, 'deliver', false) || 'inbox';
  if (deliver !== 'inbox' && deliver !== 'turn') {
    throw new HttpError(400, 'deliver must be inbox or turn');
  }
  const { client } = await ctx.projects.of(field(body, 'project', false)).collab();
  const sent = await client.messages.send(recipient, field(body, 'content'), { deliver });
  sendJson(res, 201, { messages: sent });
};

export const COLLAB_ROUTES: readonly [string, RegExp, Handler][] = [
  ['GET', /^\/api\/context$/, readPosts],
  ['POST', /^\/api\/context$/, post],
  ['GET', /^\/api\/messages$/, inbox],
  ['POST', /^\/api\/messages$/, send],
];

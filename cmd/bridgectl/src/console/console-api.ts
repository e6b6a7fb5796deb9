import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type BridgeClient,
  BridgeError,
  type PermissionDecision,
  type SessionEvent,
  type SessionStatus,
} from '@agent-bridge/bridgeclient';
import type { ApprovalsWatch } from './approvals-watch.js';
import { COLLAB_ROUTES } from './collab-api.js';
import { openEventFeed, resumeFrom } from './event-feed.js';
import { field, HttpError, readJson, sendJson } from './http-replies.js';
import { startTask } from './start-task.js';

/** What the API's handlers work with. */
export interface ApiContext {
  client: BridgeClient;
  approvals: ApprovalsWatch;
  /** Where the console's client connects, and for which project: shown on every page. */
  target: string;
  projectId: string;
  startedAt: number;
}

type Handler = (
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  params: { id: string; query: URLSearchParams },
) => Promise<void>;

const STATUSES = new Set<SessionStatus>(['STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED']);
const DECISIONS = new Set<PermissionDecision>(['allow_once', 'allow_session', 'deny']);

const overview: Handler = async (ctx, _req, res) => {
  const [health, providers] = await Promise.all([ctx.client.health(), ctx.client.listProviders()]);
  sendJson(res, 200, { target: ctx.target, projectId: ctx.projectId, health, providers });
};

const listSessions: Handler = async (ctx, _req, res, { query }) => {
  const state = query.get('state') ?? '';
  if (state !== '' && !STATUSES.has(state as SessionStatus)) {
    throw new HttpError(400, `state must be one of ${[...STATUSES].join(', ')}, not "${state}"`);
  }
  const size = Number(query.get('size') ?? 25);
  if (!Number.isSafeInteger(size) || size < 1 || size > 200) {
    throw new HttpError(400, 'size must be a whole number from 1 to 200');
  }
  const page = await ctx.client.listSessions({
    statuses: state ? [state as SessionStatus] : [],
    pageSize: size,
    pageToken: query.get('page') ?? '',
  });
  const provider = query.get('provider') ?? '';
  sendJson(res, 200, {
    sessions: provider ? page.sessions.filter((s) => s.provider === provider) : page.sessions,
    nextPageToken: page.nextPageToken,
  });
};

const startSession: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const provider = field(body, 'provider');
  const repoPath = field(body, 'repoPath');
  const prompt = field(body, 'prompt', false);
  const name = field(body, 'name', false);
  if (body.task === true) {
    if (!prompt) throw new HttpError(400, 'a task needs a prompt');
    const sessionId = await startTask(ctx.client, { provider, repoPath, prompt, name });
    sendJson(res, 201, { sessionId });
    return;
  }
  const started = await ctx.client.startSession({ provider, repoPath, ...(name ? { name } : {}) });
  if (prompt) await ctx.client.sendInput(started.sessionId, prompt);
  sendJson(res, 201, started);
};

const getSession: Handler = async (ctx, _req, res, { id }) => {
  sendJson(res, 200, await ctx.client.getSession(id));
};

const sendInput: Handler = async (ctx, req, res, { id }) => {
  const text = field(await readJson(req), 'text');
  sendJson(res, 200, await ctx.client.sendInput(id, text));
};

const interrupt: Handler = async (ctx, _req, res, { id }) => {
  sendJson(res, 200, await ctx.client.interruptTurn(id));
};

const stop: Handler = async (ctx, req, res, { id }) => {
  const body = await readJson(req);
  sendJson(res, 200, { status: await ctx.client.stopSession(id, { force: body.force === true }) });
};

/** A session's events from where the page is (Last-Event-ID on a reconnect), then live. */
const events: Handler = async (ctx, req, res, { id, query }) => {
  const feed = openEventFeed(req, res);
  const stream = ctx.client.events(id, { afterSeq: resumeFrom(req, query), signal: feed.closed });
  try {
    for await (const e of stream) await feed.send('session-event', eventJson(e), e.seq);
    await feed.send('end', {});
  } catch (err) {
    if (!feed.closed.aborted) await feed.send('failure', { error: (err as Error).message });
  } finally {
    feed.end();
  }
};

const approvals: Handler = async (ctx, req, res) => {
  const feed = openEventFeed(req, res);
  let sending = Promise.resolve();
  // Each change sends the whole list, chained so that they arrive in order.
  const push = () => {
    sending = sending.then(() => feed.send('approvals', ctx.approvals.list()));
  };
  const off = ctx.approvals.onChange(push);
  push();
  await new Promise<void>((resolve) => feed.closed.addEventListener('abort', () => resolve()));
  off();
};

const respond: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const decision = field(body, 'decision') as PermissionDecision;
  if (!DECISIONS.has(decision)) {
    throw new HttpError(400, `decision must be one of ${[...DECISIONS].join(', ')}`);
  }
  const reason = field(body, 'reason', false);
  const seq = await ctx.client.respondPermission(
    field(body, 'sessionId'),
    field(body, 'requestId'),
    decision,
    reason ? { reason } : {},
  );
  sendJson(res, 200, { seq });
};

const whoAmI: Handler = async (ctx, _req, res) => {
  sendJson(res, 200, { target: ctx.target, projectId: ctx.projectId });
};

/** The API: method and path (":id" for a session id) to handler; GETs change nothing. */
export const ROUTES: readonly [string, RegExp, Handler][] = [
  ['GET', /^\/api\/overview$/, overview],
  ['GET', /^\/api\/whoami$/, whoAmI],
  ['GET', /^\/api\/sessions$/, listSessions],
  ['POST', /^\/api\/sessions$/, startSession],
  ['GET', /^\/api\/sessions\/([^/]+)$/, getSession],
  ['GET', /^\/api\/sessions\/([^/]+)\/events$/, events],
  ['POST', /^\/api\/sessions\/([^/]+)\/input$/, sendInput],
  ['POST', /^\/api\/sessions\/([^/]+)\/interrupt$/, interrupt],
  ['POST', /^\/api\/sessions\/([^/]+)\/stop$/, stop],
  ['GET', /^\/api\/approvals$/, approvals],
  ['POST', /^\/api\/approvals$/, respond],
  ...COLLAB_ROUTES,
];

/** An event as JSON for the page: the SDK's shape with its time as ISO text. */
function eventJson(e: SessionEvent) {
  return { ...e, timestamp: e.timestamp.toISOString() };
}

/** The HTTP status of an SDK failure: the daemon's refusals say what was wrong. */
export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (!(err instanceof BridgeError)) return 500;
  const byName: Partial<Record<string, number>> = {
    INVALID_ARGUMENT: 400,
    NOT_FOUND: 404,
    ALREADY_EXISTS: 409,
    FAILED_PRECONDITION: 409,
    PERMISSION_DENIED: 403,
    RESOURCE_EXHAUSTED: 429,
    OUT_OF_RANGE: 400,
    UNAUTHENTICATED: 502,
    UNAVAILABLE: 503,
    DEADLINE_EXCEEDED: 504,
  };
  return byName[err.code] ?? 502;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BridgeError,
  type PermissionDecision,
  type SessionEvent,
  type SessionStatus,
} from '@agent-bridge/bridgeclient';
import type { ApprovalsWatch } from './approvals-watch.js';
import { COLLAB_ROUTES } from './collab-api.js';
import { openEventFeed, resumeFrom } from './event-feed.js';
import { field, HttpError, readJson, sendJson } from './http-replies.js';
import type { ProjectTargets } from './project-targets.js';
import { startTask } from './start-task.js';

/** What the API's handlers work with. */
export interface ApiContext {
  /** The projects shown, each with the daemon or fleet the console calls as it. */
  projects: ProjectTargets;
  approvals: ApprovalsWatch;
  /** Ends when the console stops. */
  lifetime: AbortSignal;
  /** Tasks started from the console, until they end. */
  tasks: Set<Promise<unknown>>;
}

type Handler = (
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  params: { id: string; query: URLSearchParams },
) => Promise<void>;

/** Refusals a retry would meet again. */
const PERMANENT = new Set([400, 403, 404, 409]);

const STATUSES = new Set<SessionStatus>(['STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED']);
const DECISIONS = new Set<PermissionDecision>(['allow_once', 'allow_session', 'deny']);

const overview: Handler = async (ctx, _req, res) => {
  // Each project's view of the daemons: their health is the same, their counts the project's.
  const views = await Promise.all(
    [...ctx.projects.entries()].map(async ([projectId, target]) => ({
      projectId,
      target,
      daemons: await target.daemons(),
    })),
  );
  const first = views[0] as (typeof views)[number];
  sendJson(res, 200, {
    target: first.target.label,
    fleet: first.target.fleet,
    projectId: first.projectId,
    daemons: first.daemons,
    // Every session of each project, counted by status across the daemons that answered.
    projects: views.map((v) => ({ projectId: v.projectId, byState: sumByState(v.daemons) })),
  });
};

function sumByState(daemons: { byState?: Record<string, number> }[]): Record<string, number> {
  const byState: Record<string, number> = {};
  for (const d of daemons) {
    for (const [state, n] of Object.entries(d.byState ?? {})) {
      byState[state] = (byState[state] ?? 0) + n;
    }
  }
  return byState;
}

/** What the console shows, without asking a daemon: for pages to draw their pickers. */
const about: Handler = async (ctx, _req, res) => {
  const first = ctx.projects.of('');
  sendJson(res, 200, { target: first.label, fleet: first.fleet, projects: ctx.projects.ids });
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
  const page = await ctx.projects.list(query.get('project') ?? '', {
    statuses: state ? [state as SessionStatus] : [],
    provider: query.get('provider') ?? '',
    pageSize: size,
    pageToken: query.get('page') ?? '',
  });
  sendJson(res, 200, page);
};

const startSession: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const provider = field(body, 'provider');
  const repoPath = field(body, 'repoPath');
  const prompt = field(body, 'prompt', false);
  const name = field(body, 'name', false);
  // With a fleet, a daemon of the person's choosing; none: the one with the most room.
  const daemon = field(body, 'daemon', false);
  const project = field(body, 'project', false);
  const target = ctx.projects.of(project);
  const remember = (sessionId: string) =>
    ctx.projects.remember(sessionId, project || (ctx.projects.ids[0] as string));
  if (body.task === true) {
    if (!prompt) throw new HttpError(400, 'a task needs a prompt');
    const sessionId = await startTask(
      (task) => target.runTask(task, daemon),
      { provider, repoPath, prompt, name },
      ctx.lifetime,
      ctx.tasks,
    );
    remember(sessionId);
    sendJson(res, 201, { sessionId });
    return;
  }
  const started = await target.startSession(
    { provider, repoPath, ...(name ? { name } : {}) },
    daemon,
  );
  remember(started.sessionId);
  if (prompt) await target.calls.sendInput(started.sessionId, prompt);
  sendJson(res, 201, started);
};

const getSession: Handler = async (ctx, _req, res, { id }) => {
  sendJson(res, 200, await (await ctx.projects.forSession(id)).calls.getSession(id));
};

const sendInput: Handler = async (ctx, req, res, { id }) => {
  const text = field(await readJson(req), 'text');
  sendJson(res, 200, await (await ctx.projects.forSession(id)).calls.sendInput(id, text));
};

const interrupt: Handler = async (ctx, _req, res, { id }) => {
  sendJson(res, 200, await (await ctx.projects.forSession(id)).calls.interruptTurn(id));
};

const stop: Handler = async (ctx, req, res, { id }) => {
  const body = await readJson(req);
  sendJson(res, 200, {
    status: await (await ctx.projects.forSession(id)).calls.stopSession(id, {
      force: body.force === true,
    }),
  });
};

/** A session's events from where the page is (Last-Event-ID on a reconnect), then live. */
const events: Handler = async (ctx, req, res, { id, query }) => {
  const feed = openEventFeed(req, res);
  try {
    const stream = (await ctx.projects.forSession(id)).calls.events(id, {
      afterSeq: resumeFrom(req, query),
      signal: feed.closed,
    });
    for await (const e of stream) await feed.send('session-event', eventJson(e), e.seq);
    await feed.send('end', {});
  } catch (err) {
    // What will not change on a retry is said; anything else ends the
    // response, and the browser reconnects after the last seq it got.
    if (!feed.closed.aborted && PERMANENT.has(statusOf(err))) {
      await feed.send('failure', { error: (err as Error).message });
    }
  } finally {
    feed.end();
  }
};

/** The waiting requests, whenever they change: the latest list, never a queue of them. */
const approvals: Handler = async (ctx, req, res) => {
  const feed = openEventFeed(req, res);
  let dirty = true;
  let wake: () => void = () => {};
  const off = ctx.approvals.subscribe(() => {
    dirty = true;
    wake();
  });
  const closed = new Promise<void>((resolve) =>
    feed.closed.addEventListener('abort', () => resolve(), { once: true }),
  );
  try {
    while (!feed.closed.aborted) {
      if (!dirty) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), closed]);
        continue;
      }
      dirty = false;
      await feed.send('approvals', ctx.approvals.list());
    }
  } finally {
    off();
  }
};

/** The waiting requests now (the navigation's count). */
const waiting: Handler = async (ctx, _req, res) => {
  sendJson(res, 200, ctx.approvals.list(true));
};

const respond: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const decision = field(body, 'decision') as PermissionDecision;
  if (!DECISIONS.has(decision)) {
    throw new HttpError(400, `decision must be one of ${[...DECISIONS].join(', ')}`);
  }
  const reason = field(body, 'reason', false);
  const sessionId = field(body, 'sessionId');
  // The page names the request's project (the approvals list says it); else it is looked up.
  const project = field(body, 'project', false);
  const target = project ? ctx.projects.of(project) : await ctx.projects.forSession(sessionId);
  const seq = await target.calls.respondPermission(
    sessionId,
    field(body, 'requestId'),
    decision,
    reason ? { reason } : {},
  );
  sendJson(res, 200, { seq });
};

/** The API: method and path (":id" for a session id) to handler; GETs change nothing. */
export const ROUTES: readonly [string, RegExp, Handler][] = [
  ['GET', /^\/api\/console$/, about],
  ['GET', /^\/api\/overview$/, overview],
  ['GET', /^\/api\/sessions$/, listSessions],
  ['POST', /^\/api\/sessions$/, startSession],
  ['GET', /^\/api\/sessions\/([^/]+)$/, getSession],
  ['GET', /^\/api\/sessions\/([^/]+)\/events$/, events],
  ['POST', /^\/api\/sessions\/([^/]+)\/input$/, sendInput],
  ['POST', /^\/api\/sessions\/([^/]+)\/interrupt$/, interrupt],
  ['POST', /^\/api\/sessions\/([^/]+)\/stop$/, stop],
  ['GET', /^\/api\/approvals$/, approvals],
  ['GET', /^\/api\/approvals\/waiting$/, waiting],
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

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { BridgeError } from '@agent-bridge/bridgeclient';
import { ApprovalsWatch } from './approvals-watch.js';
import { type ApiContext, ROUTES, statusOf } from './console-api.js';
import type { ConsoleTarget } from './console-target.js';
import { HttpError, SECURITY_HEADERS, sendError } from './http-replies.js';
import { ProjectTargets } from './project-targets.js';
import { RequestGuard } from './request-guard.js';
import { serveAsset } from './static-assets.js';

export interface ConsoleOptions {
  /**
   * The projects it shows, the console's own first, each with the daemon or
   * fleet it calls as that project (console-target.ts).
   */
  projects: ReadonlyMap<string, ConsoleTarget>;
  /** Where the built page is (static-assets.ts ASSETS_DIR). */
  assetsDir: string;
  /** A loopback address; port 0 (the default) takes a free one. */
  host?: string;
  port?: number;
  /** Told of each failure the API answers with a 5xx. */
  onError?: (err: unknown) => void;
}

export interface RunningConsole {
  /** The one-time sign-in link: it sets the session cookie and opens the overview. */
  signInUrl: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The HTTP server itself (its connections, for one). */
  server: Server;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The web console: a local HTTP server (loopback only: it has no TLS, and
 * the browser is on this host) that serves the page and an API the page
 * calls, each call made to the daemon by this process with its own
 * credentials; the browser holds none.
 */
export async function startConsole(o: ConsoleOptions): Promise<RunningConsole> {
  const host = o.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new Error(`the console listens on a loopback address only, not "${host}"`);
  }
  const projects = new ProjectTargets(o.projects);
  // Requests wait for what is made once the port is ours.
  let ready: { guard: RequestGuard; ctx: ApiContext } | undefined;
  const server = createServer((req, res) => {
    if (!ready) return sendError(res, 503, 'starting');
    handle(ready.guard, ready.ctx, o, req, res).catch((err: unknown) => {
      o.onError?.(err);
      sendError(res, 500, 'the console failed (its output says why)');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host === 'localhost' ? '127.0.0.1' : host, () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const lifetime = new AbortController();
  const guard = new RequestGuard(port);
  ready = {
    guard,
    ctx: {
      projects,
      approvals: new ApprovalsWatch(projects, lifetime.signal),
      lifetime: lifetime.signal,
      tasks: new Set(),
    },
  };
  const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    origin,
    server,
    signInUrl: `${origin}/signin?token=${guard.signInToken}`,
    async close() {
      lifetime.abort();
      // Tasks started here end with the console: each stops its session (ABORTED).
      const tasks = Promise.allSettled([...(ready?.ctx.tasks ?? [])]);
      await Promise.race([tasks, delay(15_000, undefined, { ref: false })]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(
  guard: RequestGuard,
  ctx: ApiContext,
  o: ConsoleOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://console.invalid');
  } catch {
    return sendError(res, 400, 'not a valid request path');
  }
  const refused = guard.checkSite(req);
  if (refused) return sendError(res, refused.status, refused.message);
  if (req.method === 'GET' && url.pathname === '/signin') return signIn(guard, req, url, res);
  if (!url.pathname.startsWith('/api/')) {
    // The page itself: the cookie is enough (a page load sends no key).
    if (!guard.hasSession(req)) {
      return sendError(res, 401, 'not signed in: open the one-time link `bridgectl ui` printed');
    }
    if (req.method === 'GET' && (await serveAsset(o.assetsDir, url.pathname, res))) return;
    return sendError(res, 404, `no such page: ${url.pathname}`);
  }
  try {
    const route = ROUTES.filter(([, path]) => path.test(url.pathname));
    if (route.length === 0) return sendError(res, 404, `no such call: ${url.pathname}`);
    const match = route.find(([method]) => method === req.method);
    if (!match) {
      res.setHeader('allow', route.map(([method]) => method).join(', '));
      return sendError(res, 405, `${req.method} is not allowed on ${url.pathname}`);
    }
    const [method, path, handler] = match;
    const refusal = guard.check(req, url.searchParams, method !== 'GET');
    if (refusal) return sendError(res, refusal.status, refusal.message);
    await handler(ctx, req, res, {
      id: idOf(path.exec(url.pathname)?.[1]),
      query: url.searchParams,
    });
  } catch (err) {
    const status = statusOf(err);
    if (status >= 500 && !(err instanceof BridgeError)) {
      o.onError?.(err);
      return sendError(res, 500, 'the console failed (its output says why)');
    }
    sendError(res, status, (err as Error).message);
  }
}

/** The one-time link: a cookie, and the page key in the fragment (never sent to a server). */
function signIn(guard: RequestGuard, req: IncomingMessage, url: URL, res: ServerResponse): void {
  if (guard.hasSession(req)) {
    // Signed in already (the link followed again): the page has its key.
    res.writeHead(303, { ...SECURITY_HEADERS, location: '/' });
    res.end();
    return;
  }
  const session = guard.signInWith(url.searchParams.get('token') ?? '');
  if ('status' in session) {
    sendError(res, session.status, session.message);
    return;
  }
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    'set-cookie': session.cookie,
    location: `/#key=${session.key}`,
  });
  res.end();
}

function idOf(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    throw new HttpError(400, 'the session id in the path is not valid percent-encoding');
  }
}

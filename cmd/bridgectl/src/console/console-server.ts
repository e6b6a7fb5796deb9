import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BridgeClient } from '@agent-bridge/bridgeclient';
import { ApprovalsWatch } from './approvals-watch.js';
import { type ApiContext, ROUTES, statusOf } from './console-api.js';
import { SECURITY_HEADERS, sendError } from './http-replies.js';
import { RequestGuard } from './request-guard.js';
import { serveAsset } from './static-assets.js';

export interface ConsoleOptions {
  client: BridgeClient;
  target: string;
  projectId: string;
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
  // Requests wait for what is made once the port is ours.
  let ready: { guard: RequestGuard; ctx: ApiContext } | undefined;
  const server = createServer((req, res) => {
    if (ready) void handle(ready.guard, ready.ctx, o, req, res);
    else sendError(res, 503, 'starting');
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
      client: o.client,
      approvals: new ApprovalsWatch(o.client, lifetime.signal),
      target: o.target,
      projectId: o.projectId,
      startedAt: Date.now(),
    },
  };
  const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    origin,
    signInUrl: `${origin}/signin?token=${guard.signInToken}`,
    async close() {
      lifetime.abort();
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
  const url = new URL(req.url ?? '/', 'http://console.invalid');
  const refused = guard.checkSite(req);
  if (refused) return sendError(res, refused.status, refused.message);
  if (req.method === 'GET' && url.pathname === '/signin') {
    // A person who follows the link again, signed in already, just goes on.
    const signIn =
      'csrf' in guard.signedIn(req)
        ? { cookie: undefined }
        : guard.signInWith(url.searchParams.get('token') ?? '');
    if ('status' in signIn) return sendError(res, signIn.status, signIn.message);
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      ...(signIn.cookie ? { 'set-cookie': signIn.cookie } : {}),
      location: '/',
    });
    res.end();
    return;
  }
  const session = guard.signedIn(req);
  if ('status' in session) return sendError(res, session.status, session.message);
  try {
    if (req.method === 'GET' && url.pathname === '/api/csrf') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
      res.end(JSON.stringify({ csrf: session.csrf }));
      return;
    }
    if (req.method === 'GET' && (await serveAsset(o.assetsDir, url.pathname, res))) return;
    for (const [method, path, handler] of ROUTES) {
      const m = path.exec(url.pathname);
      if (!m) continue;
      if (req.method !== method) continue;
      if (method !== 'GET') {
        const change = guard.mayChange(req);
        if (change) return sendError(res, change.status, change.message);
      }
      await handler(ctx, req, res, {
        id: decodeURIComponent(m[1] ?? ''),
        query: url.searchParams,
      });
      return;
    }
    sendError(res, 404, `no such page: ${req.method} ${url.pathname}`);
  } catch (err) {
    const status = statusOf(err);
    if (status >= 500) o.onError?.(err);
    sendError(res, status, (err as Error).message);
  }
}

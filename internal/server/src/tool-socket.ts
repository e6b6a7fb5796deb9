import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { BridgeError } from '@agent-bridge/bridge';
import type { Logger } from 'pino';

/** What the socket serves: the agents' collaboration tools, called by capability. */
export interface AgentToolsPort {
  /** The tools, for the holder of a live session's capability; refuses anyone else. */
  listFor(capability: string): unknown[];
  call(capability: string, name: string, args: unknown, signal: AbortSignal): Promise<unknown>;
}

export interface ToolSocketOptions {
  /** The socket's path; its directory is created 0700, the socket made 0600. */
  path: string;
  tools: AgentToolsPort;
  logger: Logger;
  /** Connections at once (each agent's tool server holds one). */
  maxConnections?: number;
}

export interface ToolSocket {
  readonly path: string;
  /** Stops accepting, ends every connection (its waits end too) and removes the socket file. */
  close(): Promise<void>;
}

/** The longest request line: a post's content and metadata with room for JSON's escapes. */
const MAX_LINE_BYTES = 256 * 1024;
/** Requests one connection may have under way at once. */
const MAX_IN_FLIGHT = 16;

/** One request: `tools/list`, or `tools/call` of `name` with `arguments`. */
interface ToolRequest {
  id: unknown;
  capability?: unknown;
  method?: unknown;
  name?: unknown;
  arguments?: unknown;
}

/**
 * The private channel between the daemon and the tool servers its agents
 * run (`bridge mcp`): a Unix socket only the daemon's user can open,
 * newline-delimited JSON, each request carrying its session's capability.
 * Not a network listener: nothing outside the host reaches it, and a
 * request without a live session's capability gets nothing.
 */
export async function startToolSocket(o: ToolSocketOptions): Promise<ToolSocket> {
  mkdirSync(dirname(o.path), { recursive: true, mode: 0o700 });
  // A socket file left by a daemon that died with this pid: nothing listens on it.
  rmSync(o.path, { force: true });
  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serve(socket, o);
  });
  server.maxConnections = o.maxConnections ?? 1024;
  // 0600 before anyone can connect: the umask makes it so at bind time.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(o.path, 0o600);
  return {
    path: o.path,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of connections) s.destroy();
      await closed;
      rmSync(o.path, { force: true });
    },
  };
}

function serve(socket: Socket, o: ToolSocketOptions): void {
  const ended = new AbortController();
  socket.on('close', () => ended.abort());
  socket.on('error', () => socket.destroy());
  let buffered = '';
  let inFlight = 0;
  const reply = (msg: unknown) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(msg)}\n`);
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
      if (line.trim() === '') continue;
      if (inFlight >= MAX_IN_FLIGHT) {
        reply({
          id: null,
          error: {
            code: 'resource_exhausted',
            message: `at most ${MAX_IN_FLIGHT} requests at once`,
          },
        });
        continue;
      }
      inFlight++;
      void handle(line, o, ended.signal)
        .then(reply)
        .finally(() => inFlight--);
    }
    if (Buffer.byteLength(buffered, 'utf8') > MAX_LINE_BYTES) {
      reply({
        id: null,
        error: {
          code: 'invalid_argument',
          message: `a request is at most ${MAX_LINE_BYTES} bytes`,
        },
      });
      socket.end();
      socket.destroy();
    }
  });
}

async function handle(line: string, o: ToolSocketOptions, signal: AbortSignal): Promise<unknown> {
  let req: ToolRequest;
  try {
    req = JSON.parse(line) as ToolRequest;
    if (typeof req !== 'object' || req === null) throw new Error('not an object');
  } catch {
    return {
      id: null,
      error: { code: 'invalid_argument', message: 'a request is one JSON object per line' },
    };
  }
  const id = typeof req.id === 'string' || typeof req.id === 'number' ? req.id : null;
  try {
    if (typeof req.capability !== 'string') {
      throw new BridgeError(
        'permission_denied',
        'a request carries its session capability',
        'capability_missing',
      );
    }
    if (req.method === 'tools/list') {
      return { id, result: { tools: o.tools.listFor(req.capability) } };
    }
    if (req.method === 'tools/call' && typeof req.name === 'string') {
      return {
        id,
        result: await o.tools.call(req.capability, req.name, req.arguments ?? {}, signal),
      };
    }
    throw new BridgeError(
      'invalid_argument',
      'method is tools/list, or tools/call with a name',
      'tool_request_invalid',
    );
  } catch (err) {
    if (err instanceof BridgeError) return { id, error: { code: err.kind, message: err.message } };
    o.logger.error({ err }, 'a collaboration tool call failed');
    return {
      id,
      error: { code: 'internal', message: 'the daemon failed to run the tool (see its log)' },
    };
  }
}

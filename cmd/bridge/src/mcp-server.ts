import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from './version.js';

/** How long a connection to the tool socket may take to be accepted. */
const CONNECT_MS = 10_000;
/** How long a call may wait for the daemon, beyond what the call itself waits (wait_for_message). */
const ANSWER_MS = 30_000;

interface Reply {
  id: number;
  result?: unknown;
  error?: { code: string; message: string };
}

/** Requests to the daemon's tool socket, one connection, answers matched by id. */
class ToolSocketClient {
  private socket: Socket | undefined;
  private next = 1;
  private readonly pending = new Map<number, (r: Reply) => void>();

  constructor(
    private readonly path: string,
    private readonly capability: string,
  ) {}

  /** One request; answered `deadline_exceeded` after `timeoutMs` if the daemon does not answer. */
  async request(method: string, extra: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
    const socket = await this.connected();
    const id = this.next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        const message = `the bridge daemon did not answer within ${Math.round(timeoutMs / 1000)} s`;
        resolve({ id, error: { code: 'deadline_exceeded', message } });
      }, timeoutMs);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      socket.write(`${JSON.stringify({ id, capability: this.capability, method, ...extra })}\n`);
    });
  }

  /** The connection, opened again after the daemon went away and came back. */
  private async connected(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = connect(this.path);
    await new Promise<void>((resolve, reject) => {
      // A Unix socket answers at once, or refuses: a hung daemon still gets a bound.
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('the connection was not accepted within 10 s'));
      }, CONNECT_MS);
      socket
        .once('connect', () => {
          clearTimeout(timer);
          resolve();
        })
        .once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
    });
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          // Not the daemon speaking: drop the connection (what waits is told).
          socket.destroy();
          return;
        }
        this.pending.get(reply.id)?.(reply);
        this.pending.delete(reply.id);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      // What was under way will not be answered: say so rather than hang.
      for (const [id, done] of this.pending) {
        done({
          id,
          error: { code: 'unavailable', message: 'the bridge daemon closed the connection' },
        });
      }
      this.pending.clear();
    });
    this.socket = socket;
    return socket;
  }

  close(): void {
    this.socket?.destroy();
  }
}

const failure = (e: { code: string; message: string }): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${e.code}: ${e.message}` }],
});

/**
 * `bridge mcp --socket PATH --capability-file FILE`: the MCP server an
 * agent runs for its session's collaboration tools (stdio), forwarding each
 * call to the daemon's tool socket with the session's capability, read from
 * FILE (0600, written by the daemon; never in argv, which `ps` shows).
 * Resolves with the exit code once stdin ends.
 */
export async function runMcpServer(socketPath: string, capabilityFile: string): Promise<number> {
  let capability: string;
  try {
    capability = readFileSync(capabilityFile, 'utf8').trim();
  } catch (err) {
    process.stderr.write(
      `bridge mcp: cannot read the capability file: ${(err as Error).message}\n`,
    );
    return 2;
  }
  const daemon = new ToolSocketClient(socketPath, capability);
  const server = new Server(
    { name: 'bridge', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Tools of the AI Agent Bridge: your project's shared context bus (context_post, context_read, context_ack) and messages with its other sessions (message_send, inbox, message_reply, wait_for_message, who).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const r = await daemon.request('tools/list', {}, ANSWER_MS).catch(unreachable);
    if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`);
    return { tools: (r.result as { tools: Tool[] }).tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const args = req.params.arguments ?? {};
    // wait_for_message waits by design (at most 300 s): its bound comes on top.
    const waits = req.params.name === 'wait_for_message' ? Number(args.timeout_seconds ?? 60) : 0;
    const bound = ANSWER_MS + Math.min(Math.max(waits, 0) || 0, 300) * 1000;
    const r = await daemon
      .request('tools/call', { name: req.params.name, arguments: args }, bound)
      .catch(unreachable);
    if (r.error) return failure(r.error);
    const result = r.result as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  daemon.close();
  await server.close();
  return 0;
}

const unreachable = (err: Error): Reply => ({
  id: 0,
  error: { code: 'unavailable', message: `cannot reach the bridge daemon: ${err.message}` },
});

import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type Reply, ToolSocketClient } from './private/tool-socket-client.js';
import { VERSION } from './version.js';

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
    const r = await daemon.request('tools/list', {}).catch(unreachable);
    if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`);
    return { tools: (r.result as { tools: Tool[] }).tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const args = req.params.arguments ?? {};
    // wait_for_message waits by design (at most 300 s): its bound comes on top.
    const waits = req.params.name === 'wait_for_message' ? Number(args.timeout_seconds ?? 60) : 0;
    const r = await daemon
      .request(
        'tools/call',
        { name: req.params.name, arguments: args },
        Math.min(Math.max(waits, 0) || 0, 300) * 1000,
      )
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

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake model does for one request, decided from the conversation. */
export type Script = 'text' | 'tool' | 'after-tool' | 'hang' | 'bridge-tool' | 'write-file';

/** A request as the fake received it. */
export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export const REPLY = ['Hello', ' from', ' fake', ' model.'];
export const AFTER_TOOL = ['Tool', ' ran', ' fine.'];
export const TOOL_COMMAND = 'touch created.txt';
export const BAD_KEY = 'sk-bad';

/**
 * The keyword rules shared by every vendor fake, applied to the newest text
 * of the last user message. Only the newest text counts: an input whose
 * turn was interrupted before the model saw it stays in the conversation,
 * and agents send it together with the next input, which must not inherit
 * its keyword. A request that offers no tools is a side request of the
 * CLI's own (opencode asks for a session title with the first message in
 * it): it always gets a plain answer, so a keyword meant for the agent
 * neither calls a tool there nor stalls it.
 */
function chooseScript(lastUser: unknown, hasToolResult: boolean, tools: boolean): Script {
  if (hasToolResult) return 'after-tool';
  if (!tools) return 'text';
  const text = lastText(lastUser);
  if (text.includes('USE_TOOL')) return 'tool';
  if (bridgeToolCall(text)) return 'bridge-tool';
  if (text.includes('HANG')) return 'hang';
  return 'text';
}

/**
 * `BRIDGE_TOOL <tool> <json arguments>` in a prompt: the model is to call
 * that tool of the bridge's MCP server (claude names it mcp__bridge__<tool>).
 */
export function bridgeToolCall(text: string): { tool: string; input: unknown } | undefined {
  const m = /BRIDGE_TOOL (\w+) (\{.*\})/s.exec(text);
  return m ? { tool: m[1]!, input: JSON.parse(m[2]!) } : undefined;
}

/** The last string in a message's content: a plain string, or the last `text` field in it. */
export function lastText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  for (const part of [...parts].reverse()) {
    if (part === null || typeof part !== 'object') continue;
    const p = part as Record<string, unknown>;
    const text = typeof p.text === 'string' ? p.text : lastText(p.content ?? p.parts ?? null);
    if (text) return text;
  }
  return '';
}

/**
 * A loopback HTTP server standing in for a vendor's model API: records
 * every request, hands JSON bodies to the vendor handler, and keeps stalled
 * (HANG) responses open until the client goes away or the server stops.
 */
export abstract class FakeModelApi {
  readonly requests: Recorded[] = [];
  /** The script each model request was answered with, in order. */
  readonly served: Script[] = [];
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();
  port = 0;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.dispatch(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  protected abstract handle(req: Recorded, res: ServerResponse): Promise<void>;

  /** Decides (and records) how to answer one model request. */
  protected script(lastUser: unknown, hasToolResult: boolean, tools: boolean): Script {
    return this.record(chooseScript(lastUser, hasToolResult, tools));
  }

  /** Records a script a vendor fake chose by its own rule. */
  protected record(script: Script): Script {
    this.served.push(script);
    return script;
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const rec: Recorded = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body,
    };
    this.requests.push(rec);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    try {
      await this.handle(rec, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    }
  }

  protected json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  protected sseStart(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
  }

  /** One SSE event; `event` is omitted for APIs that use data-only streams. */
  protected sse(res: ServerResponse, data: unknown, event?: string): void {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }

  /** Keeps a response open until the client disconnects (for interrupts). */
  protected hang(res: ServerResponse): Promise<void> {
    return new Promise((resolve) => res.on('close', () => resolve()));
  }
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

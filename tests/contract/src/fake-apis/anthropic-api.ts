import type { ServerResponse } from 'node:http';
import {
  AFTER_TOOL,
  BAD_KEY,
  bridgeToolCall,
  FakeModelApi,
  lastText,
  pause,
  REPLY,
  type Recorded,
  TOOL_COMMAND,
} from './fake-server.js';

type Msg = { role?: string; content?: unknown };

/**
 * Anthropic Messages API (`POST /v1/messages`, SSE when `stream: true`), as
 * claude and opencode's `@ai-sdk/anthropic` provider call it. The shell tool
 * is whichever of the request's tools looks like one (claude: Bash,
 * opencode: bash).
 */
export class FakeAnthropicApi extends FakeModelApi {
  private n = 0;

  protected async handle(req: Recorded, res: ServerResponse): Promise<void> {
    if (req.method === 'HEAD' || req.method === 'GET') {
      res.writeHead(200).end();
      return;
    }
    if (!req.url.startsWith('/v1/messages')) {
      this.json(res, 404, { type: 'error', error: { type: 'not_found_error', message: req.url } });
      return;
    }
    const key = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '');
    if (key.includes(BAD_KEY)) {
      this.json(res, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      });
      return;
    }
    const body = (req.body ?? {}) as {
      messages?: Msg[];
      tools?: { name: string }[];
      stream?: boolean;
    };
    const messages = body.messages ?? [];
    const last = [...messages].reverse().find((m) => m.role === 'user');
    const hasToolResult = JSON.stringify(last?.content ?? '').includes('"tool_result"');
    const script = this.script(last?.content ?? '', hasToolResult, (body.tools ?? []).length > 0);
    const id = `msg_fake_${++this.n}`;
    const usage = {
      input_tokens: 12,
      output_tokens: 1,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const shell = body.tools?.find((t) => /^bash$/i.test(t.name))?.name ?? 'Bash';
    if (!body.stream) {
      const text = (script === 'after-tool' ? AFTER_TOOL : REPLY).join('');
      this.json(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model: 'fake',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { ...usage, output_tokens: 7 },
      });
      return;
    }
    this.sseStart(res);
    this.sse(
      res,
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'fake',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
      'message_start',
    );
    if (script === 'tool' || script === 'bridge-tool') {
      const call = bridgeToolCall(lastText(last?.content ?? ''));
      // opencode offers an MCP tool as bridge_<tool>; claude defers them behind
      // ToolSearch (not in `tools`) and calls them mcp__bridge__<tool>.
      const offered = (body.tools ?? []).map((t) => t.name);
      const name = call
        ? (offered.find((n) => n === `bridge_${call.tool}`) ?? `mcp__bridge__${call.tool}`)
        : shell;
      const input = call?.input ?? { command: TOOL_COMMAND, description: 'create file' };
      this.sse(
        res,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: `toolu_fake_${this.n}`, name, input: {} },
        },
        'content_block_start',
      );
      this.sse(
        res,
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
        },
        'content_block_delta',
      );
      this.sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
      this.sse(
        res,
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 20 },
        },
        'message_delta',
      );
      this.sse(res, { type: 'message_stop' }, 'message_stop');
      res.end();
      return;
    }
    this.sse(
      res,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    const words =
      script === 'after-tool' ? AFTER_TOOL : script === 'hang' ? ['thinking...'] : REPLY;
    for (const w of words) {
      this.sse(
        res,
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } },
        'content_block_delta',
      );
      await pause(20);
    }
    if (script === 'hang') return this.hang(res);
    this.sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
    this.sse(
      res,
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 7 },
      },
      'message_delta',
    );
    this.sse(res, { type: 'message_stop' }, 'message_stop');
    res.end();
  }
}

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

type Item = {
  type?: string;
  role?: string;
  content?: unknown;
  name?: string;
  namespace?: string;
  call_id?: string;
  output?: unknown;
};

/**
 * `THEN_WRITE <file>` after a BRIDGE_TOOL in the prompt: once the bridge's
 * tool has answered, the model writes the content of the first post in that
 * answer to <file> with the shell tool, as a model acting on what it read
 * from the bus would.
 */
function fileToWrite(input: Item[], prompt: string): { file: string; content: string } | undefined {
  const file = /THEN_WRITE (\S+)/.exec(prompt)?.[1];
  const last = input.at(-1);
  if (!file || last?.type !== 'function_call_output') return undefined;
  const call = input.find((i) => i.type === 'function_call' && i.call_id === last.call_id);
  if (call?.namespace !== 'mcp__bridge') return undefined;
  const text = typeof last.output === 'string' ? last.output : lastTexts(last.output);
  const content = /"content":("(?:[^"\\]|\\.)*")/.exec(text)?.[1];
  return content === undefined ? undefined : { file, content: JSON.parse(content) as string };
}

function lastTexts(parts: unknown): string {
  return Array.isArray(parts)
    ? parts.map((p) => String((p as Item & { text?: string }).text ?? '')).join('')
    : '';
}

/**
 * OpenAI Responses API (`POST /v1/responses`, SSE), as codex calls it with
 * `wire_api = "responses"`. The tool call uses the shell tool codex offers
 * (`exec_command {cmd}` in 0.169, `shell {command: []}` in older builds), or
 * for BRIDGE_TOOL the bridge's MCP tool in its namespace.
 */
export class FakeOpenAiResponsesApi extends FakeModelApi {
  private n = 0;

  protected async handle(req: Recorded, res: ServerResponse): Promise<void> {
    if (!req.url.startsWith('/v1/responses')) {
      this.json(res, 404, {
        error: { message: `no route ${req.url}`, type: 'invalid_request_error' },
      });
      return;
    }
    if (String(req.headers.authorization ?? '').includes(BAD_KEY)) {
      this.json(res, 401, {
        error: {
          message: 'Incorrect API key provided: sk-bad.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      return;
    }
    const body = (req.body ?? {}) as { input?: Item[]; tools?: Item[] };
    const input = body.input ?? [];
    const lastItem = input.at(-1);
    const lastUser = [...input].reverse().find((i) => i.role === 'user');
    const write = fileToWrite(input, lastText(lastUser?.content ?? ''));
    const script = write
      ? this.record('write-file')
      : this.script(
          lastUser?.content ?? '',
          lastItem?.type === 'function_call_output',
          (body.tools ?? []).length > 0,
        );
    const n = ++this.n;
    const id = `resp_${n}`;
    this.sseStart(res);
    this.sse(
      res,
      {
        type: 'response.created',
        response: { id, object: 'response', status: 'in_progress', output: [] },
      },
      'response.created',
    );
    const output: unknown[] = [];
    if (script === 'tool' || script === 'bridge-tool' || script === 'write-file') {
      const names = (body.tools ?? []).map((t) => String(t.name ?? ''));
      const bridge = write ? undefined : bridgeToolCall(lastText(lastUser?.content ?? ''));
      const command = write
        ? `echo ${Buffer.from(write.content).toString('base64')} | base64 -d > ${write.file}`
        : TOOL_COMMAND;
      const call = bridge
        ? {
            // codex 0.171 offers an MCP server's tools as one `namespace` tool
            // (mcp__<server>) holding them; a call names the tool and its namespace.
            name: bridge.tool,
            namespace: 'mcp__bridge',
            arguments: JSON.stringify(bridge.input),
          }
        : names.includes('exec_command')
          ? { name: 'exec_command', arguments: JSON.stringify({ cmd: command }) }
          : {
              name: 'shell',
              arguments: JSON.stringify({ command: ['bash', '-lc', command] }),
            };
      const item = {
        type: 'function_call',
        id: `fc_${n}`,
        call_id: `call_${n}`,
        status: 'completed',
        ...call,
      };
      this.sse(
        res,
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: { ...item, status: 'in_progress' },
        },
        'response.output_item.added',
      );
      this.sse(
        res,
        { type: 'response.output_item.done', output_index: 0, item },
        'response.output_item.done',
      );
      output.push(item);
    } else {
      const msgId = `msg_${n}`;
      this.sse(
        res,
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: {
            type: 'message',
            id: msgId,
            role: 'assistant',
            status: 'in_progress',
            content: [],
          },
        },
        'response.output_item.added',
      );
      const words =
        script === 'after-tool' ? AFTER_TOOL : script === 'hang' ? ['thinking...'] : REPLY;
      for (const w of words) {
        this.sse(
          res,
          {
            type: 'response.output_text.delta',
            item_id: msgId,
            output_index: 0,
            content_index: 0,
            delta: w,
          },
          'response.output_text.delta',
        );
        await pause(20);
      }
      if (script === 'hang') return this.hang(res);
      const item = {
        type: 'message',
        id: msgId,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: words.join(''), annotations: [] }],
      };
      this.sse(
        res,
        { type: 'response.output_item.done', output_index: 0, item },
        'response.output_item.done',
      );
      output.push(item);
    }
    this.sse(
      res,
      {
        type: 'response.completed',
        response: {
          id,
          object: 'response',
          status: 'completed',
          output,
          usage: {
            input_tokens: 22,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 10,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 32,
          },
        },
      },
      'response.completed',
    );
    res.end();
  }
}

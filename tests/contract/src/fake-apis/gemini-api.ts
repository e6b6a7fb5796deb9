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

type Content = { role?: string; parts?: Record<string, unknown>[] };

/**
 * Gemini API (`POST /v1beta/models/<m>:streamGenerateContent?alt=sse` and
 * `:generateContent`), as gemini-cli calls it with an API key and
 * `GOOGLE_GEMINI_BASE_URL`.
 */
export class FakeGeminiApi extends FakeModelApi {
  protected async handle(req: Recorded, res: ServerResponse): Promise<void> {
    const key = String(req.headers['x-goog-api-key'] ?? '') + req.url;
    if (key.includes(BAD_KEY)) {
      this.json(res, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
        },
      });
      return;
    }
    const m = /\/v1beta\/models\/([^:]+):(streamGenerateContent|generateContent|countTokens)/.exec(
      req.url,
    );
    if (!m) {
      this.json(res, 404, {
        error: { code: 404, message: `no route ${req.url}`, status: 'NOT_FOUND' },
      });
      return;
    }
    const body = (req.body ?? {}) as {
      contents?: Content[];
      tools?: { functionDeclarations?: { name: string }[] }[];
    };
    if (m[2] === 'countTokens') {
      this.json(res, 200, { totalTokens: 10 });
      return;
    }
    const contents = body.contents ?? [];
    const last = contents.at(-1);
    const lastUser = [...contents]
      .reverse()
      .find((c) => c.role === 'user' && c.parts?.some((p) => 'text' in p));
    const hasToolResult = Boolean(last?.parts?.some((p) => 'functionResponse' in p));
    const decls = (body.tools ?? [])
      .flatMap((t) => t.functionDeclarations ?? [])
      .map((d) => d.name);
    const script = this.script(lastUser?.parts ?? [], hasToolResult, decls.length > 0);
    const usageMetadata = { promptTokenCount: 26, candidatesTokenCount: 12, totalTokenCount: 38 };
    const shell = decls.find((d) => d === 'run_shell_command') ?? decls[0] ?? 'run_shell_command';
    const chunk = (parts: unknown[], finishReason?: string) => ({
      candidates: [
        { content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) },
      ],
      usageMetadata,
      modelVersion: m[1],
    });
    if (m[2] === 'generateContent') {
      this.json(res, 200, chunk([{ text: REPLY.join('') }], 'STOP'));
      return;
    }
    this.sseStart(res);
    if (script === 'tool' || script === 'bridge-tool') {
      const bridge = bridgeToolCall(lastText(lastUser?.parts ?? []));
      // However gemini names an MCP server's tools: the one that ends with the tool's name.
      const call = bridge
        ? { name: decls.find((d) => d.endsWith(bridge.tool)) ?? bridge.tool, args: bridge.input }
        : { name: shell, args: { command: TOOL_COMMAND } };
      this.sse(res, chunk([{ functionCall: call }], 'STOP'));
      res.end();
      return;
    }
    const words =
      script === 'after-tool' ? AFTER_TOOL : script === 'hang' ? ['thinking...'] : REPLY;
    for (const [i, w] of words.entries()) {
      this.sse(
        res,
        chunk([{ text: w }], i === words.length - 1 && script !== 'hang' ? 'STOP' : undefined),
      );
      await pause(20);
    }
    if (script === 'hang') return this.hang(res);
    res.end();
  }
}

import { InputClosedError } from '../contract/errors.js';
import type { EventData } from '../contract/events.js';
import { isRecord, type JsonObject, obj, str } from '../contract/json-value.js';
import { summarizeInput } from '../contract/permission.js';
import type { ToolServer } from '../contract/provider.js';
import { JSON_RPC, JsonRpcPeer } from '../turns/json-rpc-peer.js';
import { RequestError } from '../turns/pending-requests.js';
import type { DriverContext, ProtocolDriver } from '../turns/structured-provider.js';
import type { Turn } from '../turns/turn.js';
import { type AcpAgent, type HandshakeOptions, openAcpSession } from './acp-handshake.js';
import { ACP_METHODS, type NewSessionInfo } from './acp-schema.js';
import { answerPermission, decisionsOffered, offeredOptions } from './permission-answer.js';
import { UpdateMapper } from './update-mapper.js';

export type AcpDriverOptions = Pick<HandshakeOptions, 'modelVia'> & { clientVersion?: string };

/**
 * One ACP v1 session over the agent's stdio: the handshake opens a session,
 * then each input is one `session/prompt`, whose response ends the turn.
 * ACP agents read their input in order, so a `session/cancel` written after
 * the prompt reaches it: a turn is begun as soon as its prompt is written.
 * The agent's requests are answered here: permissions through the session's gate, `fs/*` and
 * `terminal/*` refused (we advertise neither capability).
 */
export class AcpDriver implements ProtocolDriver {
  private readonly peer: JsonRpcPeer;
  private readonly mapper: UpdateMapper;
  private session: NewSessionInfo | undefined;
  private agentFacts: AcpAgent = { info: {}, authMethods: [], capabilities: {} };
  private gone = false;
  /** While session/load replays the conversation being resumed. */
  private replaying = false;

  constructor(
    private readonly ctx: DriverContext,
    private readonly opts: AcpDriverOptions,
  ) {
    this.mapper = new UpdateMapper((e) => ctx.emit(e));
    this.peer = new JsonRpcPeer({
      jsonrpcField: true,
      write: (msg) => ctx.writeJson(msg),
      onNotification: (method, params) => this.onNotification(method, params),
      onRequest: (method, params) => this.onRequest(method, params),
    });
  }

  /** What the agent said about itself in `initialize`. */
  get agent(): AcpAgent {
    return this.agentFacts;
  }

  /** The agent's session id, once the handshake has it. */
  get conversationId(): string | undefined {
    return this.session?.sessionId;
  }

  async handshake(): Promise<void> {
    const resume = this.ctx.spec.resume?.conversationId;
    // What a session/load replays is in the bridge's events already.
    this.replaying = resume !== undefined;
    try {
      const { agent, session } = await openAcpSession(this.peer, {
        cwd: this.ctx.spec.repoPath,
        options: this.ctx.options,
        modelVia: this.opts.modelVia,
        clientVersion: this.opts.clientVersion ?? '0.1.0',
        resume,
        tools: this.ctx.spec.tools,
      });
      this.agentFacts = agent;
      this.session = session;
    } finally {
      this.replaying = false;
    }
  }

  onMessage(msg: JsonObject): void {
    if (!this.peer.handle(msg)) {
      // JSON that is not JSON-RPC: keep it, like any other stray output.
      this.ctx.emit({ type: 'STDOUT', stream: 'stdout', text: JSON.stringify(msg) });
    }
  }

  startTurn(text: string, turn: Turn): void {
    const session = this.session;
    if (!session || this.gone) throw new InputClosedError();
    const prompt = this.peer.request(
      ACP_METHODS.sessionPrompt,
      { sessionId: session.sessionId, prompt: [{ type: 'text', text }] },
      0,
    );
    const startedAt = Date.now();
    this.mapper.begin();
    const data: EventData = { acp_session_id: session.sessionId };
    if (this.agentFacts.info.name) data.agent = this.agentFacts.info.name;
    if (this.agentFacts.info.version) data.agent_version = this.agentFacts.info.version;
    this.ctx.turns.announce(turn, data);
    this.ctx.turns.begun(turn);
    prompt.then(
      (result) =>
        this.endTurn(turn, startedAt, str(obj(result).stopReason) || 'end_turn', {
          ...this.mapper.usage.summary(result),
        }),
      (err: unknown) => this.failTurn(turn, startedAt, err),
    );
  }

  async cancelTurn(): Promise<void> {
    if (this.session)
      this.peer.notify(ACP_METHODS.sessionCancel, { sessionId: this.session.sessionId });
  }

  onExit(): void {
    this.gone = true;
    this.peer.close('the agent exited');
  }

  private failTurn(turn: Turn, startedAt: number, err: unknown): void {
    // The agent died mid-turn: the session fails with its exit status and stderr.
    if (this.gone) return;
    const e =
      err instanceof RequestError ? err : new RequestError(String(err), JSON_RPC.internalError);
    const detail: EventData = { code: e.code };
    if (e.data !== undefined) detail.error_data = e.data;
    if (turn.interruptRequested) {
      // Cancelling may surface as an error from the agent's aborted request.
      this.endTurn(turn, startedAt, 'cancelled', { error: e.message, ...detail });
      return;
    }
    const message = errorMessage(e);
    this.ctx.emit({
      type: 'AGENT_ERROR',
      stream: 'system',
      text: `the agent failed the turn: ${message}`,
      error: message,
      turnId: turn.id,
      data: { reason: 'prompt_error', ...detail },
    });
    this.endTurn(turn, startedAt, 'error', { error: message, ...detail });
  }

  private endTurn(turn: Turn, startedAt: number, stopReason: string, extra: EventData): void {
    this.mapper.flush(turn.id);
    this.ctx.turns.complete(turn, {
      text: stopReason,
      cancelled: stopReason === 'cancelled',
      data: { stop_reason: stopReason, duration_ms: Date.now() - startedAt, ...extra },
    });
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== ACP_METHODS.sessionUpdate || !isRecord(params) || this.replaying) return;
    if (this.session && params.sessionId !== this.session.sessionId) return;
    this.mapper.update(params.update, this.ctx.turns.currentId);
  }

  private async onRequest(method: string, params: unknown): Promise<unknown> {
    if (method === ACP_METHODS.requestPermission) {
      const p = obj(params);
      const turn = this.ctx.turns.current;
      // After session/cancel, ACP wants every permission request answered "cancelled", at once.
      if (turn?.interruptRequested) return { outcome: { outcome: 'cancelled' } };
      const offered = offeredOptions(p.options);
      const tool = this.mapper.permissionToolCall(p.toolCall, this.ctx.turns.currentId);
      if (isBridgeTool(tool?.title, this.ctx.spec.tools)) {
        return { outcome: answerPermission('allow_once', offered) };
      }
      const toolName = tool?.kind || tool?.title || 'tool';
      const verdict = await this.ctx.askPermission({
        tool: toolName,
        summary: tool?.title || summarizeInput(tool?.rawInput),
        input: tool?.rawInput ?? null,
        options: decisionsOffered(offered),
        ...(tool?.toolCallId ? { toolCallId: tool.toolCallId } : {}),
        ...(this.ctx.turns.currentId ? { turnId: this.ctx.turns.currentId } : {}),
        ...(tool?.title ? { details: { title: tool.title } } : {}),
      });
      // Interrupted while it waited: "cancelled" too, whatever the verdict.
      if (turn?.interruptRequested) return { outcome: { outcome: 'cancelled' } };
      return { outcome: answerPermission(verdict.decision, offered) };
    }
    if (method.startsWith('fs/') || method.startsWith('terminal/')) {
      throw new RequestError(
        `${method} is not supported: this client offers no file system or terminal access`,
        JSON_RPC.methodNotFound,
      );
    }
    throw new RequestError(`${method} is not supported by this client`, JSON_RPC.methodNotFound);
  }
}

/**
 * A call of the bridge's own tool server: allowed without asking anyone, as
 * claude and codex are told up front. opencode 1.18 titles an MCP tool
 * call `<server>_<tool>`, gemini 0.61 `<tool> (<server> MCP Server)`. A
 * server of the repository's own config named "bridge" would match too; it
 * gains nothing by it, as the agent starts a configured server, and so runs
 * its code, without asking anyone.
 */
function isBridgeTool(title: string | undefined, tools: ToolServer | undefined): boolean {
  if (!title || !tools) return false;
  const { name } = tools;
  return tools.tools.some((t) => title === `${name}_${t}` || title === `${t} (${name} MCP Server)`);
}

/** The error text, with the agent's own detail when it put one in `data`. */
function errorMessage(e: RequestError): string {
  const base = e.message.replace(/^session\/prompt: /, '');
  const d = e.data;
  const detail = isRecord(d)
    ? str(d.message) || str(obj(d.data).message) || str(d.details)
    : str(d);
  return detail && !base.includes(detail) ? `${base}: ${detail}` : base;
}

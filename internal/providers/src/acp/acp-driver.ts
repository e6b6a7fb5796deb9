import { JsonRpcError, JsonRpcPeer } from '../json-rpc-peer.js';
import type { DriverContext, ProtocolDriver } from '../structured-provider.js';
import { InputClosedError } from '../supervised-process.js';
import {
  ACP_METHODS,
  ACP_PROTOCOL_VERSION,
  type AgentInfo,
  type AuthMethod,
  type InitializeParams,
  isRecord,
  type NewSessionInfo,
  newSessionInfo,
  str,
} from './acp-schema.js';
import { answerPermission, type PermissionAnswer } from './permission-answer.js';
import { UpdateMapper } from './update-mapper.js';

export interface AcpDriverOptions {
  /** How `agent_opts.model` reaches the agent: already in argv, or set over the protocol. */
  modelVia: 'argv' | 'protocol';
  /** How long an interrupt waits for the agent to end the cancelled turn. */
  cancelWaitMs?: number;
  clientVersion?: string;
}

/** The JSON-RPC code ACP uses for "authentication required". */
const AUTH_REQUIRED = -32000;
const METHOD_NOT_FOUND = -32601;
const DEFAULT_CANCEL_WAIT_MS = 5000;

interface RunningTurn {
  turnId: string;
  startedAt: number;
  cancelRequested: boolean;
  /** Settles once TURN_COMPLETED has been emitted. */
  ended: Promise<void>;
}

/**
 * One ACP v1 session over the agent's stdio: `initialize`, `session/new`
 * (plus mode and model), then one `session/prompt` per input. The prompt's
 * response ends the turn. ACP runs one prompt at a time per session, so
 * inputs that arrive during a turn are queued and each starts its own turn
 * when the previous one ends. The agent's requests are answered here:
 * permissions by policy, `fs/*` and `terminal/*` refused (we advertise
 * neither capability).
 */
export class AcpDriver implements ProtocolDriver {
  private readonly peer: JsonRpcPeer;
  private readonly mapper: UpdateMapper;
  private session: NewSessionInfo | undefined;
  private agentInfo: AgentInfo = {};
  private authMethods: AuthMethod[] = [];
  private agentCapabilities: Record<string, unknown> = {};
  private running: RunningTurn | undefined;
  private readonly queue: string[] = [];
  private gone = false;
  /** Set by a failed write, so a prompt that never reached the agent is caught at once. */
  private writeError: unknown;
  /** The TURN_STARTED of the running turn while it waits for SendInput to record the input. */
  private unannounced: (() => void) | undefined;

  constructor(
    private readonly ctx: DriverContext,
    private readonly opts: AcpDriverOptions,
  ) {
    this.mapper = new UpdateMapper((e) => ctx.emit(e));
    this.peer = new JsonRpcPeer({
      jsonrpcField: true,
      // The peer serialises; the context writes objects. Re-parsing a line we just built is cheap.
      write: (line) => {
        try {
          ctx.writeJson(JSON.parse(line));
        } catch (err) {
          this.writeError = err;
          throw err;
        }
      },
      onNotification: (method, params) => this.onNotification(method, params),
      onRequest: (method, params) => this.onRequest(method, params),
    });
  }

  /** What the agent said about itself in `initialize`. */
  get agent(): {
    info: AgentInfo;
    authMethods: AuthMethod[];
    capabilities: Record<string, unknown>;
  } {
    return {
      info: this.agentInfo,
      authMethods: this.authMethods,
      capabilities: this.agentCapabilities,
    };
  }

  async handshake(): Promise<void> {
    const params: InitializeParams = {
      protocolVersion: ACP_PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'agent-bridge', version: this.opts.clientVersion ?? '0.1.0' },
    };
    // No request timeouts here: the start-up timeout bounds the whole handshake.
    const init = await this.peer.request(ACP_METHODS.initialize, params, 0);
    if (!isRecord(init)) throw new Error('initialize returned no result');
    if (init.protocolVersion !== ACP_PROTOCOL_VERSION) {
      throw new Error(
        `the agent speaks ACP protocol version ${JSON.stringify(init.protocolVersion)}; this client speaks ${ACP_PROTOCOL_VERSION}`,
      );
    }
    if (isRecord(init.agentInfo)) this.agentInfo = init.agentInfo as AgentInfo;
    if (Array.isArray(init.authMethods)) {
      this.authMethods = init.authMethods.filter(
        (m): m is AuthMethod => isRecord(m) && typeof m.id === 'string',
      );
    }
    if (isRecord(init.agentCapabilities)) this.agentCapabilities = init.agentCapabilities;

    const created = await this.peer
      .request(ACP_METHODS.sessionNew, { cwd: this.ctx.spec.repoPath, mcpServers: [] }, 0)
      .catch((err: unknown) => {
        throw this.explainAuth(err);
      });
    const session = newSessionInfo(created);
    this.session = session;
    await this.applyMode(session);
    await this.applyModel(session);
  }

  onMessage(msg: unknown): void {
    if (!this.peer.handle(msg)) {
      // JSON that is not JSON-RPC: keep it, like any other stray output.
      this.ctx.emit({ type: 'STDOUT', stream: 'stdout', text: JSON.stringify(msg) });
    }
  }

  send(text: string): void {
    if (this.gone || !this.session) throw new InputClosedError();
    if (this.running) {
      this.queue.push(text);
      return;
    }
    this.startTurn(text, true);
  }

  async interrupt(): Promise<{ interrupted: boolean; turnId: string }> {
    const run = this.running;
    if (!run || !this.session) return { interrupted: false, turnId: '' };
    run.cancelRequested = true;
    try {
      this.peer.notify(ACP_METHODS.sessionCancel, { sessionId: this.session.sessionId });
    } catch {
      return { interrupted: false, turnId: run.turnId };
    }
    const wait = this.opts.cancelWaitMs ?? DEFAULT_CANCEL_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      run.ended.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), wait);
      }),
    ]);
    clearTimeout(timer);
    return { interrupted: ended, turnId: run.turnId };
  }

  onExit(): void {
    this.gone = true;
    this.queue.length = 0;
    this.peer.close('the agent exited');
  }

  /**
   * Starts a turn. A direct input must fail synchronously when the agent no
   * longer reads, so that SendInput records nothing; a queued one can only
   * report the failure as the turn's error.
   */
  private startTurn(text: string, direct: boolean): void {
    const session = this.session as NewSessionInfo;
    this.writeError = undefined;
    const prompt = this.peer.request(
      ACP_METHODS.sessionPrompt,
      { sessionId: session.sessionId, prompt: [{ type: 'text', text }] },
      0,
    );
    if (direct && this.writeError !== undefined) {
      prompt.catch(() => undefined);
      throw new InputClosedError();
    }
    const turnId = this.ctx.turns.begin();
    this.mapper.begin();
    const run: RunningTurn = {
      turnId,
      startedAt: Date.now(),
      cancelRequested: false,
      ended: Promise.resolve(),
    };
    this.running = run;
    run.ended = prompt.then(
      (result) => this.completeTurn(run, result),
      (err: unknown) => this.failTurn(run, err),
    );
    const data: Record<string, unknown> = { acp_session_id: session.sessionId };
    if (this.agentInfo.name) data.agent = this.agentInfo.name;
    if (this.agentInfo.version) data.agent_version = this.agentInfo.version;
    this.unannounced = () =>
      this.ctx.emit({ type: 'TURN_STARTED', stream: 'system', text: '', turnId, data });
    if (direct) {
      // SendInput records INPUT_RECEIVED right after this returns, in the same
      // tick: deferring puts the input's seq before the turn it starts.
      queueMicrotask(() => this.announceTurn());
    } else {
      data.queued = true;
      this.announceTurn();
    }
  }

  /** Emits the running turn's TURN_STARTED if it is still due, so it precedes all of the turn's events. */
  private announceTurn(): void {
    const emit = this.unannounced;
    this.unannounced = undefined;
    emit?.();
  }

  private completeTurn(run: RunningTurn, result: unknown): void {
    const r = isRecord(result) ? result : {};
    const stopReason = str(r.stopReason) ?? 'end_turn';
    this.endTurn(run, stopReason, this.mapper.usage.summary(result));
  }

  private failTurn(run: RunningTurn, err: unknown): void {
    if (this.gone) {
      // The agent died mid-turn: the session fails with its exit status and stderr.
      if (this.running === run) this.running = undefined;
      return;
    }
    const e = err instanceof JsonRpcError ? err : new JsonRpcError(String(err), -32603);
    const detail: Record<string, unknown> = { code: e.code };
    if (e.data !== undefined) detail.error_data = e.data;
    if (run.cancelRequested) {
      // Cancelling may surface as an error from the agent's aborted request.
      this.endTurn(run, 'cancelled', { error: e.message, ...detail });
      return;
    }
    this.announceTurn();
    const message = errorMessage(e);
    this.ctx.emit({
      type: 'AGENT_ERROR',
      stream: 'system',
      text: `the agent failed the turn: ${message}`,
      error: message,
      turnId: run.turnId,
      data: { reason: 'prompt_error', ...detail },
    });
    this.endTurn(run, 'error', { error: message, ...detail });
  }

  private endTurn(run: RunningTurn, stopReason: string, extra: Record<string, unknown>): void {
    this.announceTurn();
    this.mapper.flush(run.turnId);
    this.ctx.emit({
      type: 'TURN_COMPLETED',
      stream: 'system',
      text: stopReason,
      done: true,
      turnId: run.turnId,
      data: {
        stop_reason: stopReason,
        interrupted: stopReason === 'cancelled',
        duration_ms: Date.now() - run.startedAt,
        ...extra,
      },
    });
    if (this.running === run) {
      this.running = undefined;
      this.ctx.turns.end();
    }
    this.startQueued();
  }

  private startQueued(): void {
    const next = this.queue.shift();
    if (next === undefined || this.gone) return;
    this.startTurn(next, false);
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== ACP_METHODS.sessionUpdate || !isRecord(params)) return;
    if (this.session && params.sessionId !== this.session.sessionId) return;
    this.announceTurn();
    this.mapper.update(params.update, this.running?.turnId);
  }

  private async onRequest(method: string, params: unknown): Promise<unknown> {
    this.announceTurn();
    if (method === ACP_METHODS.requestPermission) {
      const p = isRecord(params) ? params : {};
      // After session/cancel, ACP wants every permission request answered "cancelled".
      const answer: PermissionAnswer = this.running?.cancelRequested
        ? { outcome: { outcome: 'cancelled' }, decision: this.ctx.permissions }
        : answerPermission(this.ctx.permissions, p.options);
      this.mapper.permission(p.toolCall, answer, this.running?.turnId);
      return { outcome: answer.outcome };
    }
    if (method.startsWith('fs/') || method.startsWith('terminal/')) {
      throw new JsonRpcError(
        `${method} is not supported: this client offers no file system or terminal access`,
        METHOD_NOT_FOUND,
      );
    }
    throw new JsonRpcError(`${method} is not supported by this client`, METHOD_NOT_FOUND);
  }

  private async applyMode(session: NewSessionInfo): Promise<void> {
    const mode = this.ctx.options.mode;
    if (mode === undefined) return;
    if (!session.modes) {
      throw new Error(`agent_opts.mode: this agent offers no session modes`);
    }
    if (!session.modes.some((m) => m.id === mode)) {
      throw new Error(
        `agent_opts.mode: this agent has no mode "${mode}" (it offers: ${session.modes.map((m) => m.id).join(', ')})`,
      );
    }
    if (session.currentModeId === mode) return;
    await this.peer.request(
      ACP_METHODS.sessionSetMode,
      { sessionId: session.sessionId, modeId: mode },
      0,
    );
  }

  private async applyModel(session: NewSessionInfo): Promise<void> {
    const model = this.ctx.options.model;
    if (model === undefined || this.opts.modelVia === 'argv') return;
    if (session.modelOption) {
      if (session.modelOption.currentValue === model) return;
      await this.peer.request(
        ACP_METHODS.sessionSetConfigOption,
        { sessionId: session.sessionId, configId: session.modelOption.id, value: model },
        0,
      );
      return;
    }
    if (session.hasModels) {
      await this.peer.request(
        ACP_METHODS.sessionSetModel,
        { sessionId: session.sessionId, modelId: model },
        0,
      );
      return;
    }
    throw new Error('agent_opts.model: this agent offers no way to choose a model');
  }

  /** An auth_required answer to session/new, with the agent's own sign-in methods. */
  private explainAuth(err: unknown): unknown {
    if (!(err instanceof JsonRpcError) || err.code !== AUTH_REQUIRED) return err;
    const methods = this.authMethods.map((m) => m.name ?? m.id).join('; ');
    return new Error(
      `${err.message} (the agent is not authenticated${methods ? `; it supports: ${methods}` : ''})`,
    );
  }
}

/** The error text, with the agent's own detail when it put one in `data`. */
function errorMessage(e: JsonRpcError): string {
  const base = e.message.replace(/^session\/prompt: /, '');
  const d = e.data;
  const detail = isRecord(d)
    ? (str(d.message) ?? (isRecord(d.data) ? str(d.data.message) : undefined) ?? str(d.details))
    : str(d);
  return detail && !base.includes(detail) ? `${base}: ${detail}` : base;
}

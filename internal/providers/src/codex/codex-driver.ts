import type { EventData } from '../contract/events.js';
import { type JsonObject, obj, str } from '../contract/json-value.js';
import { JSON_RPC, JsonRpcPeer } from '../turns/json-rpc-peer.js';
import { RequestError } from '../turns/pending-requests.js';
import type { DriverContext, ProtocolDriver } from '../turns/structured-provider.js';
import type { Turn } from '../turns/turn.js';
import { answerUserInput, approvalRequest } from './approvals.js';
import { threadStartParams } from './codex-options.js';
import { itemCompleted, itemStarted } from './item-events.js';
import { errorEvent, turnFailedEvent, warningEvent } from './notification-events.js';
import { type TokenCounts, tokenCounts, usageSince } from './token-usage.js';

/** Bound on turn/interrupt (start-up is bounded by startup_timeout, a turn by turn_timeout). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * One session of `codex app-server`: JSON-RPC without the "jsonrpc" field.
 * The handshake opens one thread in the repository; each input is one
 * `turn/start` (never `turn/steer`, so every SendInput stays one turn with
 * its own events). Codex names the turn in its answer to `turn/start`, and
 * that id becomes the bridge's turn id, so TURN_STARTED waits for it. Codex
 * refuses `turn/interrupt` until it has sent `turn/started`, so only then is
 * the turn begun and a held interrupt delivered.
 */
export class CodexDriver implements ProtocolDriver {
  private readonly peer: JsonRpcPeer;
  private threadId = '';
  /** The thread's token total as last reported, and what it was when the running turn began. */
  private threadTotal: TokenCounts = {};
  private turnBaseline: TokenCounts = {};
  private contextWindow: number | null = null;
  /** Whether codex reported usage during the running turn. */
  private usageSeen = false;

  constructor(
    private readonly ctx: DriverContext,
    private readonly clientVersion: string,
  ) {
    this.peer = new JsonRpcPeer({
      jsonrpcField: false,
      write: (msg) => ctx.writeJson(msg),
      onNotification: (method, params) => this.onNotification(method, obj(params)),
      onRequest: (method, params) => this.onRequest(method, obj(params)),
    });
  }

  /** Codex's thread id, once the handshake has it. */
  get conversationId(): string | undefined {
    return this.threadId || undefined;
  }

  async handshake(): Promise<void> {
    // No per-request timeout: start-up as a whole is bounded by startup_timeout.
    await this.peer.request(
      'initialize',
      {
        clientInfo: { name: 'agent-bridge', title: null, version: this.clientVersion },
        capabilities: null,
      },
      0,
    );
    this.peer.notify('initialized');
    // After a daemon restart, the thread it had: codex reloads it from its rollout file.
    const resume = this.ctx.spec.resume?.conversationId;
    const method = resume ? 'thread/resume' : 'thread/start';
    const params = threadStartParams(this.ctx.spec.repoPath, this.ctx.options);
    const res = obj(
      await this.peer.request(method, resume ? { ...params, threadId: resume } : params, 0),
    );
    const thread = obj(res.thread);
    const id = str(thread.id);
    if (!id) throw new Error(`${method} answered without a thread id`);
    this.threadId = id;
    this.ctx.emit({
      type: 'STDOUT',
      stream: 'system',
      text: `codex thread ${id}`,
      data: {
        thread_id: id,
        model: thread.model ?? null,
        model_provider: thread.modelProvider ?? null,
      },
    });
  }

  onMessage(msg: JsonObject): void {
    if (!this.peer.handle(msg)) {
      // JSON, but not JSON-RPC: kept like any other stray output.
      this.ctx.emit({ type: 'STDOUT', stream: 'stdout', text: JSON.stringify(msg) });
    }
  }

  startTurn(text: string, turn: Turn): void {
    // No timeout of its own: a turn codex never answers is ended by turn_timeout, and one
    // abandoned early could still start and be mistaken for the next.
    const started = this.peer.request(
      'turn/start',
      { threadId: this.threadId, input: [{ type: 'text', text, text_elements: [] }] },
      0,
    );
    this.turnBaseline = this.threadTotal;
    this.usageSeen = false;
    started.then(
      (res) => this.named(turn, str(obj(obj(res).turn).id)),
      (err: Error) =>
        this.ctx.turns.abandon(turn, {
          type: 'AGENT_ERROR',
          stream: 'system',
          text: `codex did not start the turn: ${err.message}`,
          error: err.message,
          turnId: turn.id,
          data: { reason: 'turn_start_failed' },
        }),
    );
  }

  async cancelTurn(turn: Turn): Promise<void> {
    await this.peer.request(
      'turn/interrupt',
      { threadId: this.threadId, turnId: turn.id },
      REQUEST_TIMEOUT_MS,
    );
  }

  onExit(): void {
    this.peer.close('codex exited');
  }

  /** Codex told us the turn's id (its answer to turn/start, or a turn notification). */
  private named(turn: Turn, id: string): void {
    if (id) this.ctx.turns.announce(turn, { thread_id: this.threadId }, id);
  }

  /**
   * The turn a notification belongs to. Before codex has named the running
   * turn, an un-addressed notification (a model-metadata warning, say) is
   * not tagged: the provisional id would appear on no other event.
   */
  private turnOf(p: JsonObject): string | undefined {
    return str(p.turnId) || this.ctx.turns.currentId;
  }

  private onNotification(method: string, p: JsonObject): void {
    const turn = this.ctx.turns.current;
    switch (method) {
      case 'turn/started':
        if (!turn) return;
        this.named(turn, str(obj(p.turn).id));
        this.ctx.turns.begun(turn);
        return;
      case 'turn/completed':
        if (turn) this.onTurnCompleted(turn, obj(p.turn));
        return;
      case 'item/agentMessage/delta':
        this.ctx.emit({
          type: 'AGENT_MESSAGE_DELTA',
          stream: 'stdout',
          text: str(p.delta),
          turnId: this.turnOf(p),
          data: { item_id: str(p.itemId) },
        });
        return;
      case 'item/started':
      case 'item/completed': {
        const item = obj(p.item);
        const ev =
          method === 'item/started'
            ? itemStarted(item, this.turnOf(p))
            : itemCompleted(item, this.turnOf(p));
        if (ev) this.ctx.emit(ev);
        return;
      }
      case 'thread/tokenUsage/updated': {
        const usage = obj(p.tokenUsage);
        this.threadTotal = tokenCounts(usage.total);
        if (typeof usage.modelContextWindow === 'number') {
          this.contextWindow = usage.modelContextWindow;
        }
        if (!p.turnId || p.turnId === turn?.id) this.usageSeen = true;
        return;
      }
      case 'error':
        this.ctx.emit(errorEvent(p, this.turnOf(p)));
        return;
      default: {
        // Everything else (status changes, rate limits, reasoning, output
        // deltas) carries nothing the event model has a place for; emit_raw keeps it.
        const warning = warningEvent(method, p, this.turnOf(p));
        if (warning) this.ctx.emit(warning);
      }
    }
  }

  private onTurnCompleted(turn: Turn, t: JsonObject): void {
    const id = str(t.id);
    // A completion of a turn other than the running one (codex names it) is not ours to end.
    if (id && turn.announced && id !== turn.id) return;
    this.named(turn, id);
    const status = str(t.status) || 'completed';
    const error = obj(t.error);
    const message = str(error.message);
    if (status === 'failed') this.ctx.emit(turnFailedEvent(error, turn.id));
    const data: EventData = {
      status,
      usage: this.usageSeen ? usageSince(this.threadTotal, this.turnBaseline) : null,
      thread_usage: this.usageSeen ? this.threadTotal : null,
      context_window: this.contextWindow,
      duration_ms: t.durationMs ?? null,
    };
    if (message) data.error = message;
    this.ctx.turns.complete(turn, {
      text: status,
      cancelled: status === 'interrupted',
      ...(message ? { error: message } : {}),
      data,
    });
  }

  private async onRequest(method: string, p: JsonObject): Promise<unknown> {
    const turnId = this.ctx.turns.currentId;
    const approval = approvalRequest(method, p, turnId);
    if (approval) {
      const verdict = await this.ctx.askPermission(approval.ask);
      return approval.result(verdict.decision);
    }
    const userInput = answerUserInput(method, p, turnId);
    if (userInput) {
      this.ctx.emit(userInput.event);
      return userInput.result;
    }
    this.ctx.emit({
      type: 'AGENT_ERROR',
      stream: 'system',
      text: `codex sent a request the bridge does not handle (${method}); it was refused`,
      error: 'unsupported request',
      turnId: this.turnOf(p),
      data: { method },
    });
    throw new RequestError(`agent-bridge does not handle ${method}`, JSON_RPC.methodNotFound);
  }
}

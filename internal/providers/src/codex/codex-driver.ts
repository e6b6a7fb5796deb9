import type { AgentEvent, EventData } from '../events.js';
import { JsonRpcError, JsonRpcPeer } from '../json-rpc-peer.js';
import type { DriverContext, ProtocolDriver } from '../structured-provider.js';
import { InputClosedError } from '../supervised-process.js';
import { answerApproval } from './approvals.js';
import { threadStartParams } from './codex-options.js';
import { type Item, itemCompleted, itemStarted } from './item-events.js';
import { type TokenCounts, tokenCounts, usageSince } from './token-usage.js';

/** Bound on our requests once the session runs (start-up is bounded by startup_timeout). */
const REQUEST_TIMEOUT_MS = 30_000;
/** How long an interrupt waits for codex to report the turn's end. */
const INTERRUPT_CONFIRM_MS = 5_000;

/** Notifications that are advice, not failure: kept, but not as AGENT_ERROR. */
const WARNING_METHODS: ReadonlySet<string> = new Set([
  'warning',
  'configWarning',
  'deprecationNotice',
]);

type Params = Record<string, unknown>;

const asRecord = (v: unknown): Params =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Params) : {};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * One session of `codex app-server`: JSON-RPC without the "jsonrpc" field.
 * The handshake opens one thread in the repository; each input is one
 * `turn/start`, and inputs that arrive while a turn runs wait their turn
 * (never `turn/steer`, so every SendInput stays one turn with its own
 * events). Codex's turn id becomes the bridge's turn id.
 */
export class CodexDriver implements ProtocolDriver {
  private readonly peer: JsonRpcPeer;
  private threadId = '';
  private phase: 'idle' | 'starting' | 'running' = 'idle';
  /** Codex's id of the running turn, known once turn/start answers. */
  private turnId: string | undefined;
  /** Settles when the starting turn has its id, or failed to start. */
  private starting: Promise<void> | undefined;
  private readonly queue: string[] = [];
  /** The thread's token total as last reported, and what it was when the running turn began. */
  private threadTotal: TokenCounts = {};
  private turnBaseline: TokenCounts = {};
  private contextWindow: number | null = null;
  /** Whether codex reported usage during the running turn. */
  private usageSeen = false;
  private readonly endWaiters = new Map<string, Array<(status: string | undefined) => void>>();
  private writeError: unknown;
  private exited = false;

  constructor(
    private readonly ctx: DriverContext,
    private readonly clientVersion: string,
  ) {
    this.peer = new JsonRpcPeer({
      jsonrpcField: false,
      write: (line) => {
        try {
          ctx.writeJson(JSON.parse(line));
        } catch (err) {
          // The peer turns this into a rejection; send() needs to know at once.
          this.writeError = err;
          throw err;
        }
      },
      onNotification: (method, params) => this.onNotification(method, asRecord(params)),
      onRequest: (method, params) => this.onRequest(method, asRecord(params)),
    });
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
    const res = asRecord(
      await this.peer.request(
        'thread/start',
        threadStartParams(this.ctx.spec.repoPath, this.ctx.options),
        0,
      ),
    );
    const thread = asRecord(res.thread);
    const id = str(thread.id);
    if (!id) throw new Error('thread/start answered without a thread id');
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

  onMessage(msg: unknown): void {
    if (!this.peer.handle(msg)) {
      // JSON, but not JSON-RPC: kept like any other stray output.
      this.ctx.emit({ type: 'STDOUT', stream: 'stdout', text: JSON.stringify(msg) });
    }
  }

  send(text: string): void {
    if (this.exited) throw new InputClosedError();
    if (this.phase !== 'idle') {
      this.queue.push(text);
      return;
    }
    this.startTurn(text);
  }

  async interrupt(): Promise<{ interrupted: boolean; turnId: string }> {
    if (this.phase === 'starting' && this.starting) {
      await within(this.starting, INTERRUPT_CONFIRM_MS);
    }
    const id = this.turnId;
    if (this.phase !== 'running' || !id) return { interrupted: false, turnId: '' };
    const ended = this.waitForEnd(id, INTERRUPT_CONFIRM_MS);
    let acknowledged = true;
    await this.peer
      .request('turn/interrupt', { threadId: this.threadId, turnId: id }, REQUEST_TIMEOUT_MS)
      .catch(() => {
        acknowledged = false;
      });
    // Refused while the turn still runs: it was not interrupted. Refused because
    // it just ended: its end status below says how.
    if (!acknowledged && this.turnId === id) return { interrupted: false, turnId: id };
    const status = await ended;
    return { interrupted: status === 'interrupted', turnId: id };
  }

  onExit(): void {
    this.exited = true;
    this.queue.length = 0;
    this.peer.close('codex exited');
    for (const waiters of this.endWaiters.values()) for (const w of waiters) w(undefined);
    this.endWaiters.clear();
  }

  private startTurn(text: string): void {
    this.writeError = undefined;
    const provisional = this.ctx.turns.begin();
    this.phase = 'starting';
    this.turnBaseline = this.threadTotal;
    this.usageSeen = false;
    const req = this.peer.request(
      'turn/start',
      { threadId: this.threadId, input: [{ type: 'text', text, text_elements: [] }] },
      REQUEST_TIMEOUT_MS,
    );
    if (this.writeError !== undefined) {
      req.catch(() => undefined);
      this.ctx.turns.end();
      this.phase = 'idle';
      throw this.writeError instanceof InputClosedError ? this.writeError : new InputClosedError();
    }
    this.starting = req.then(
      (res) => this.onTurnStarted(str(asRecord(asRecord(res).turn).id)),
      (err: Error) => this.onTurnStartFailed(provisional, err),
    );
  }

  private onTurnStarted(id: string): void {
    // The turn/start answer and the turn/started notification both carry the id.
    if (!id || this.phase !== 'starting') return;
    this.turnId = id;
    this.phase = 'running';
    this.ctx.turns.adopt(id);
    this.ctx.emit({
      type: 'TURN_STARTED',
      stream: 'system',
      text: '',
      turnId: id,
      data: { thread_id: this.threadId },
    });
  }

  private onTurnStartFailed(provisional: string, err: Error): void {
    if (this.phase !== 'starting') return;
    this.phase = 'idle';
    this.ctx.turns.end();
    if (this.exited) return;
    this.ctx.emit({
      type: 'AGENT_ERROR',
      stream: 'system',
      text: `codex did not start the turn: ${err.message}`,
      error: err.message,
      turnId: provisional,
      data: { reason: 'turn_start_failed' },
    });
    this.next();
  }

  private onTurnCompleted(p: Params): void {
    const turn = asRecord(p.turn);
    const id = str(turn.id);
    if (this.phase === 'starting') this.onTurnStarted(id);
    const status = str(turn.status) || 'completed';
    const error = asRecord(turn.error);
    const message = str(error.message);
    if (status === 'failed') {
      this.ctx.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: `codex turn failed: ${message || 'no reason given'}`,
        error: message || 'turn failed',
        turnId: id,
        data: {
          reason: 'turn_failed',
          codex_error_info: error.codexErrorInfo ?? null,
          additional_details: error.additionalDetails ?? null,
        },
      });
    }
    const current = !id || id === this.turnId;
    const seen = current && this.usageSeen;
    const data: EventData = {
      status,
      interrupted: status === 'interrupted',
      usage: seen ? usageSince(this.threadTotal, this.turnBaseline) : null,
      thread_usage: seen ? this.threadTotal : null,
      context_window: this.contextWindow,
      duration_ms: turn.durationMs ?? null,
    };
    if (message) data.error = message;
    this.ctx.emit({
      type: 'TURN_COMPLETED',
      stream: 'system',
      text: status,
      done: true,
      turnId: id || this.turnId,
      ...(message ? { error: message } : {}),
      data,
    });
    if (current) {
      this.turnId = undefined;
      this.phase = 'idle';
      this.ctx.turns.end();
    }
    const waiters = this.endWaiters.get(id);
    this.endWaiters.delete(id);
    for (const w of waiters ?? []) w(status);
    if (current) this.next();
  }

  /** Starts the next queued input, if any. */
  private next(): void {
    const text = this.queue.shift();
    if (text === undefined || this.exited) return;
    try {
      this.startTurn(text);
    } catch (err) {
      this.queue.length = 0;
      this.ctx.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: `a queued input could not be delivered: ${(err as Error).message}`,
        error: (err as Error).message,
        data: { reason: 'input_closed' },
      });
    }
  }

  private waitForEnd(turnId: string, ms: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ms);
      timer.unref();
      const list = this.endWaiters.get(turnId) ?? [];
      list.push((status) => {
        clearTimeout(timer);
        resolve(status);
      });
      this.endWaiters.set(turnId, list);
    });
  }

  /**
   * The turn a notification belongs to. Before codex has named the running
   * turn, an un-addressed notification (a model-metadata warning, say) is
   * not tagged: the provisional id would appear on no other event.
   */
  private turnOf(p: Params): string | undefined {
    return str(p.turnId) || (this.phase === 'running' ? this.ctx.turns.current : undefined);
  }

  private onNotification(method: string, p: Params): void {
    switch (method) {
      case 'turn/started':
        this.onTurnStarted(str(asRecord(p.turn).id));
        return;
      case 'turn/completed':
        this.onTurnCompleted(p);
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
        const item = asRecord(p.item) as Item;
        const ev =
          method === 'item/started'
            ? itemStarted(item, this.turnOf(p))
            : itemCompleted(item, this.turnOf(p));
        if (ev) this.ctx.emit(ev);
        return;
      }
      case 'thread/tokenUsage/updated': {
        const usage = asRecord(p.tokenUsage);
        this.threadTotal = tokenCounts(usage.total);
        if (typeof usage.modelContextWindow === 'number') {
          this.contextWindow = usage.modelContextWindow;
        }
        if (!p.turnId || p.turnId === this.turnId) this.usageSeen = true;
        return;
      }
      case 'error':
        this.ctx.emit(errorEvent(p, this.turnOf(p)));
        return;
      default:
        if (WARNING_METHODS.has(method)) this.ctx.emit(warningEvent(method, p, this.turnOf(p)));
      // Everything else (status changes, rate limits, reasoning, output deltas)
      // carries nothing the event model has a place for; emit_raw keeps it.
    }
  }

  private async onRequest(method: string, p: Params): Promise<unknown> {
    const answer = answerApproval(method, p, this.ctx.permissions, this.ctx.turns.current);
    if (answer) {
      this.ctx.emit(answer.event);
      return answer.result;
    }
    this.ctx.emit({
      type: 'AGENT_ERROR',
      stream: 'system',
      text: `codex sent a request the bridge does not handle (${method}); it was refused`,
      error: 'unsupported request',
      turnId: this.turnOf(p),
      data: { method },
    });
    throw new JsonRpcError(`agent-bridge does not handle ${method}`, -32601);
  }
}

/** `error` notification: an API or transport failure, maybe being retried by codex. */
export function errorEvent(p: Params, turnId: string | undefined): AgentEvent {
  const error = asRecord(p.error);
  const message = str(error.message) || 'unknown error';
  const willRetry = p.willRetry === true;
  return {
    type: 'AGENT_ERROR',
    stream: 'system',
    text: `codex: ${message}${willRetry ? ' (codex is retrying)' : ''}`,
    error: message,
    turnId,
    data: {
      will_retry: willRetry,
      codex_error_info: error.codexErrorInfo ?? null,
      additional_details: error.additionalDetails ?? null,
    },
  };
}

/** `warning` and friends: diagnostics, recorded like the agent's stderr. */
export function warningEvent(method: string, p: Params, turnId: string | undefined): AgentEvent {
  const text = str(p.message) || str(p.summary) || JSON.stringify(p);
  const data: EventData = { warning: method };
  if (p.details != null) data.details = p.details;
  return { type: 'STDERR', stream: 'system', text, turnId, data };
}

function within(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref();
    p.then(
      () => {
        clearTimeout(t);
        resolve();
      },
      () => {
        clearTimeout(t);
        resolve();
      },
    );
  });
}

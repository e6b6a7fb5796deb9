import type { EventData } from '../contract/events.js';
import { type JsonObject, obj, str } from '../contract/json-value.js';
import { denialMessage, PERMISSION_DECISIONS, summarizeInput } from '../contract/permission.js';
import { PendingRequests } from '../turns/pending-requests.js';
import type { DriverContext, ProtocolDriver } from '../turns/structured-provider.js';
import type { Turn } from '../turns/turn.js';
import {
  assistantEvents,
  deltaEvent,
  initFacts,
  resultData,
  retryEvent,
  toolResultEvents,
} from './message-events.js';

/** The code a control request's error answer gets (claude's answers carry none). */
const CONTROL_ERROR = -32000;

/**
 * One session of `claude -p` in stream-json mode. Each input is one user
 * line and one turn, ending at claude's `result` line. Control requests
 * (`initialize`, `interrupt`) go out on stdin; permission prompts
 * (`can_use_tool`) come in and wait for the session's permission gate.
 * Claude reads its stdin in order, so an interrupt written right after the
 * user line reaches the turn that line starts: a turn is begun as soon as
 * it is written.
 */
export class StreamJsonDriver implements ProtocolDriver {
  private lastId = 0;
  private readonly controls = new PendingRequests<string>(() => `req_${++this.lastId}`);
  /** The error text already reported in this turn, so `result` does not repeat it. */
  private reportedError = '';
  private init: EventData = {};

  constructor(private readonly ctx: DriverContext) {}

  /** Claude's session id: the bridge's own, or the one resumed (claude keeps it on `--resume`). */
  get conversationId(): string {
    return this.ctx.spec.resume?.conversationId ?? this.ctx.spec.sessionId;
  }

  async handshake(): Promise<void> {
    // Unbounded here: start-up as a whole is bounded by startup_timeout.
    await this.control({ subtype: 'initialize' }, 0);
  }

  startTurn(text: string, turn: Turn): void {
    this.ctx.writeJson({ type: 'user', message: { role: 'user', content: text } });
    this.reportedError = '';
    this.ctx.turns.announce(turn);
    this.ctx.turns.begun(turn);
  }

  /** Rejects only on claude's error answer; how long to wait for the turn's end is the engine's call. */
  async cancelTurn(): Promise<void> {
    await this.control({ subtype: 'interrupt' }, 0);
  }

  onExit(): void {
    this.controls.close('claude exited');
  }

  onMessage(m: JsonObject): void {
    const turnId = this.ctx.turns.currentId;
    switch (m.type) {
      case 'control_response':
        this.onControlResponse(obj(m.response));
        return;
      case 'control_request':
        this.onControlRequest(str(m.request_id), obj(m.request));
        return;
      case 'system':
        if (m.subtype === 'init') this.init = initFacts(m);
        else if (m.subtype === 'api_retry') this.ctx.emit(retryEvent(m, turnId));
        return;
      case 'stream_event': {
        const delta = deltaEvent(m, turnId);
        if (delta) this.ctx.emit(delta);
        return;
      }
      case 'assistant':
        for (const e of assistantEvents(m, turnId)) {
          if (e.type === 'AGENT_ERROR') this.reportedError = e.text;
          this.ctx.emit(e);
        }
        return;
      case 'user':
        for (const e of toolResultEvents(m, turnId)) this.ctx.emit(e);
        return;
      case 'result':
        this.onResult(m);
        return;
      default:
      // Other lines (keep_alive, rate limit notices, hooks) carry nothing the
      // event model has a place for; emit_raw keeps them.
    }
  }

  private control(request: JsonObject, timeoutMs: number): Promise<JsonObject> {
    return this.controls.send(`control request ${str(request.subtype)}`, timeoutMs, (id) =>
      this.ctx.writeJson({ type: 'control_request', request_id: id, request }),
    );
  }

  private onControlResponse(r: JsonObject): void {
    const id = str(r.request_id);
    if (r.subtype === 'error') {
      this.controls.reject(id, str(r.error) || 'control request failed', CONTROL_ERROR);
    } else this.controls.resolve(id, obj(r.response));
  }

  private onControlRequest(id: string, req: JsonObject): void {
    if (req.subtype !== 'can_use_tool') {
      this.reply({ subtype: 'error', request_id: id, error: `unsupported: ${str(req.subtype)}` });
      return;
    }
    const input = obj(req.input);
    const toolCallId = str(req.tool_use_id);
    const turnId = this.ctx.turns.currentId;
    void this.ctx
      .askPermission({
        tool: str(req.tool_name),
        summary: summarizeInput(input),
        input,
        options: PERMISSION_DECISIONS,
        ...(toolCallId ? { toolCallId } : {}),
        ...(turnId ? { turnId } : {}),
        ...(req.blocked_path ? { details: { blocked_path: req.blocked_path } } : {}),
      })
      .then((verdict) => {
        // Claude gets one use at a time; an allow_session is remembered by the session's gate.
        const response =
          verdict.decision === 'deny'
            ? { behavior: 'deny', message: denialMessage(verdict) }
            : { behavior: 'allow', updatedInput: input };
        this.reply({ subtype: 'success', request_id: id, response });
      });
  }

  private reply(response: JsonObject): void {
    try {
      this.ctx.writeJson({ type: 'control_response', response });
    } catch {
      // claude is gone; its exit is reported elsewhere.
    }
  }

  /** The turn's end. Judged by is_error: an authentication failure arrives as subtype "success". */
  private onResult(m: JsonObject): void {
    const turn = this.ctx.turns.current;
    if (!turn) return;
    const isError = m.is_error === true;
    // After an interrupt claude ends the turn with an error result; that is the interrupt, not a failure.
    const interrupted = isError && turn.interruptRequested;
    const status = interrupted ? 'interrupted' : isError ? 'failed' : 'completed';
    const text = str(m.result);
    if (isError && !interrupted && text !== this.reportedError) {
      this.ctx.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: text || `claude turn failed (${str(m.subtype)})`,
        error: str(m.subtype) || 'error',
        turnId: turn.id,
        data: { reason: str(m.subtype), api_error_status: m.api_error_status ?? null },
      });
    }
    this.ctx.turns.complete(turn, {
      text: status,
      cancelled: interrupted,
      ...(isError && !interrupted ? { error: text || str(m.subtype) } : {}),
      data: { status, ...resultData(m), ...this.init },
    });
  }
}

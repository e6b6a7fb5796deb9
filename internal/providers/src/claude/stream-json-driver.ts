import type { EventData } from '../events.js';
import type { DriverContext, ProtocolDriver } from '../structured-provider.js';
import { InputClosedError } from '../supervised-process.js';

/** How long an interrupt waits for its acknowledgement and for the turn's result. */
const INTERRUPT_CONFIRM_MS = 5_000;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const USAGE_KEYS = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
] as const;

type Pending = { resolve(v: Obj): void; reject(e: Error): void; timer?: NodeJS.Timeout };

/**
 * One session of `claude -p` in stream-json mode. Each input is one user
 * line and one turn, ending at claude's `result` line; inputs that arrive
 * while a turn runs wait for it (claude would merge them into the running
 * turn, which would blur whose events are whose). Control requests
 * (`initialize`, `interrupt`) go out on stdin; permission prompts
 * (`can_use_tool`) come in and are answered by the `permissions` policy.
 */
export class StreamJsonDriver implements ProtocolDriver {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly queue: string[] = [];
  private running = false;
  private interrupting = false;
  private exited = false;
  /** The error text already reported in this turn, so `result` does not repeat it. */
  private reportedError = '';
  private resultWaiters: Array<() => void> = [];
  private init: Obj = {};

  constructor(private readonly ctx: DriverContext) {}

  async handshake(): Promise<void> {
    // Unbounded here: start-up as a whole is bounded by startup_timeout.
    await this.control({ subtype: 'initialize' }, 0);
  }

  send(text: string): void {
    if (this.exited) throw new InputClosedError();
    if (this.running) {
      this.queue.push(text);
      return;
    }
    this.startTurn(text, true);
  }

  async interrupt(): Promise<{ interrupted: boolean; turnId: string }> {
    const turnId = this.ctx.turns.current;
    if (!this.running || !turnId) return { interrupted: false, turnId: '' };
    this.interrupting = true;
    const ended = this.waitForResult(INTERRUPT_CONFIRM_MS);
    try {
      await this.control({ subtype: 'interrupt' }, INTERRUPT_CONFIRM_MS);
    } catch {
      // No acknowledgement: the turn is interrupted only if it ends anyway.
      if (this.ctx.turns.current === turnId) {
        this.interrupting = false;
        return { interrupted: false, turnId };
      }
    }
    await ended;
    return { interrupted: this.ctx.turns.current !== turnId, turnId };
  }

  onExit(): void {
    this.exited = true;
    this.queue.length = 0;
    for (const [id, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new Error('claude exited'));
      this.pending.delete(id);
    }
    for (const w of this.resultWaiters.splice(0)) w();
  }

  onMessage(msg: unknown): void {
    const m = obj(msg);
    switch (m.type) {
      case 'control_response':
        this.onControlResponse(obj(m.response));
        return;
      case 'control_request':
        this.onControlRequest(str(m.request_id), obj(m.request));
        return;
      case 'system':
        this.onSystem(m);
        return;
      case 'stream_event':
        this.onStreamEvent(m);
        return;
      case 'assistant':
        this.onAssistant(m);
        return;
      case 'user':
        this.onUser(m);
        return;
      case 'result':
        this.onResult(m);
        return;
      default:
      // Other lines (keep_alive, rate limit notices, hooks) carry nothing the
      // event model has a place for; emit_raw keeps them.
    }
  }

  /**
   * `direct`: called from SendInput, which records INPUT_RECEIVED right after
   * `send` returns, in the same tick. TURN_STARTED then waits a microtask so
   * the input's seq comes before the turn it starts; claude's output arrives
   * in later I/O callbacks, so nothing of the turn can come first.
   */
  private startTurn(text: string, direct = false): void {
    try {
      this.ctx.writeJson({ type: 'user', message: { role: 'user', content: text } });
    } catch (err) {
      throw err instanceof InputClosedError ? err : new InputClosedError();
    }
    const turnId = this.ctx.turns.begin();
    this.running = true;
    this.reportedError = '';
    const announce = () =>
      this.ctx.emit({ type: 'TURN_STARTED', stream: 'system', text: '', turnId });
    if (direct) queueMicrotask(announce);
    else announce();
  }

  private control(request: Obj, timeoutMs: number): Promise<Obj> {
    const id = `req_${this.nextId++}`;
    return new Promise<Obj>((resolve, reject) => {
      const p: Pending = { resolve, reject };
      if (timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`control request ${String(request.subtype)} timed out`));
        }, timeoutMs);
        p.timer.unref();
      }
      this.pending.set(id, p);
      try {
        this.ctx.writeJson({ type: 'control_request', request_id: id, request });
      } catch (err) {
        this.pending.delete(id);
        if (p.timer) clearTimeout(p.timer);
        reject(err);
      }
    });
  }

  private onControlResponse(r: Obj): void {
    const id = str(r.request_id);
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    if (r.subtype === 'error') p.reject(new Error(str(r.error) || 'control request failed'));
    else p.resolve(obj(r.response));
  }

  private onControlRequest(id: string, req: Obj): void {
    if (req.subtype !== 'can_use_tool') {
      this.reply({
        subtype: 'error',
        request_id: id,
        error: `unsupported: ${str(req.subtype)}`,
      });
      return;
    }
    const allow = this.ctx.permissions === 'allow';
    const input = obj(req.input);
    this.ctx.emit({
      type: 'TOOL_CALL',
      stream: 'system',
      text: `${str(req.tool_name)}: permission ${allow ? 'allowed' : 'denied'}`,
      turnId: this.ctx.turns.current,
      data: {
        permission: allow ? 'allow' : 'deny',
        tool_use_id: str(req.tool_use_id),
        name: str(req.tool_name),
        input,
        ...(req.blocked_path ? { blocked_path: req.blocked_path } : {}),
      },
    });
    const response = allow
      ? { behavior: 'allow', updatedInput: input }
      : { behavior: 'deny', message: 'denied by bridge policy' };
    this.reply({ subtype: 'success', request_id: id, response });
  }

  private reply(response: Obj): void {
    try {
      this.ctx.writeJson({ type: 'control_response', response });
    } catch {
      // claude is gone; its exit is reported elsewhere.
    }
  }

  private onSystem(m: Obj): void {
    if (m.subtype === 'init') {
      this.init = {
        model: m.model ?? null,
        claude_session_id: m.session_id ?? null,
        claude_code_version: m.claude_code_version ?? null,
        permission_mode: m.permissionMode ?? null,
      };
      return;
    }
    if (m.subtype === 'api_retry') {
      const attempt = `${m.attempt ?? '?'}/${m.max_retries ?? '?'}`;
      const status = m.error_status == null ? '' : ` (HTTP ${m.error_status})`;
      this.ctx.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: `claude API request failed${status}: ${str(m.error) || 'unknown error'}; retry ${attempt}`,
        error: str(m.error) || 'api_retry',
        turnId: this.ctx.turns.current,
        data: {
          reason: 'api_retry',
          attempt: m.attempt ?? null,
          max_retries: m.max_retries ?? null,
          retry_delay_ms: m.retry_delay_ms ?? null,
          error_status: m.error_status ?? null,
        },
      });
    }
  }

  private onStreamEvent(m: Obj): void {
    const ev = obj(m.event);
    const delta = obj(ev.delta);
    if (ev.type !== 'content_block_delta' || delta.type !== 'text_delta') return;
    this.ctx.emit({
      type: 'AGENT_MESSAGE_DELTA',
      stream: 'stdout',
      text: str(delta.text),
      turnId: this.ctx.turns.current,
      data: subagent(m, { index: ev.index ?? 0 }),
    });
  }

  private onAssistant(m: Obj): void {
    const message = obj(m.message);
    const blocks = Array.isArray(message.content) ? message.content.map(obj) : [];
    const turnId = this.ctx.turns.current;
    if (m.error) {
      // A synthetic message standing for a failure (authentication_failed…).
      const text = blocks.map((b) => str(b.text)).join('') || str(m.error);
      this.reportedError = text;
      this.ctx.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text,
        error: str(m.error),
        turnId,
        data: { reason: str(m.error) },
      });
      return;
    }
    for (const b of blocks) {
      if (b.type === 'text') {
        this.ctx.emit({
          type: 'AGENT_MESSAGE',
          stream: 'stdout',
          text: str(b.text),
          turnId,
          data: subagent(m, { message_id: str(message.id) }),
        });
      } else if (b.type === 'tool_use') {
        this.ctx.emit({
          type: 'TOOL_CALL',
          stream: 'system',
          text: str(b.name),
          turnId,
          data: subagent(m, { tool_use_id: str(b.id), name: str(b.name), input: obj(b.input) }),
        });
      }
    }
  }

  private onUser(m: Obj): void {
    if (m.isReplay) return;
    const content = obj(m.message).content;
    if (!Array.isArray(content)) return;
    for (const b of content.map(obj)) {
      if (b.type !== 'tool_result') continue;
      const out = b.content;
      const text =
        typeof out === 'string'
          ? out
          : Array.isArray(out)
            ? out.map((c) => str(obj(c).text)).join('')
            : '';
      this.ctx.emit({
        type: 'TOOL_RESULT',
        stream: 'system',
        text,
        turnId: this.ctx.turns.current,
        data: subagent(m, {
          tool_use_id: str(b.tool_use_id),
          is_error: b.is_error === true,
          ...(m.tool_use_result !== undefined ? { tool_use_result: m.tool_use_result } : {}),
        }),
      });
    }
  }

  private onResult(m: Obj): void {
    const turnId = this.ctx.turns.current;
    const isError = m.is_error === true;
    const interrupted = isError && this.interrupting;
    const status = interrupted ? 'interrupted' : isError ? 'failed' : 'completed';
    const text = str(m.result);
    // Judged by is_error: an authentication failure arrives as subtype "success".
    if (isError && !interrupted && text !== this.reportedError) {
      this.ctx.emit({
        type: 'AGENT_ERROR',
        stream: 'system',
        text: text || `claude turn failed (${str(m.subtype)})`,
        error: str(m.subtype) || 'error',
        turnId,
        data: { reason: str(m.subtype), api_error_status: m.api_error_status ?? null },
      });
    }
    const usage = obj(m.usage);
    const data: EventData = {
      status,
      interrupted,
      subtype: str(m.subtype),
      is_error: isError,
      usage: Object.fromEntries(
        USAGE_KEYS.filter((k) => typeof usage[k] === 'number').map((k) => [k, usage[k]]),
      ),
      total_cost_usd: m.total_cost_usd ?? null,
      duration_ms: m.duration_ms ?? null,
      num_turns: m.num_turns ?? null,
      stop_reason: m.stop_reason ?? null,
      permission_denials: Array.isArray(m.permission_denials) ? m.permission_denials : [],
      ...this.init,
    };
    this.ctx.emit({
      type: 'TURN_COMPLETED',
      stream: 'system',
      text: status,
      done: true,
      turnId,
      ...(isError && !interrupted ? { error: text || str(m.subtype) } : {}),
      data,
    });
    this.running = false;
    this.interrupting = false;
    this.ctx.turns.end();
    for (const w of this.resultWaiters.splice(0)) w();
    this.next();
  }

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

  private waitForResult(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      t.unref();
      this.resultWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

/** Adds the parent tool call when the line comes from a sub-agent (Task tool). */
function subagent(m: Obj, data: EventData): EventData {
  return m.parent_tool_use_id ? { ...data, parent_tool_use_id: m.parent_tool_use_id } : data;
}

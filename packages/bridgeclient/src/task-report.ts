import {
  type PermissionDecision,
  type PermissionResolution,
  permissionRequest,
  permissionResolution,
} from './permissions.js';
import { str } from './private/data-fields.js';
import { isTerminal, type SessionEvent } from './types.js';

/**
 * How a task ended. COMPLETED: its turn completed without error. SKIPPED:
 * the daemon could not run it, so nothing ran. HALTED: the agent stopped on
 * an error, or the task ran out of time. ABORTED: the caller's signal.
 */
export type TaskStatus = 'COMPLETED' | 'SKIPPED' | 'HALTED' | 'ABORTED';

/** A tool the agent called during the task, from TOOL_CALL, TOOL_RESULT and PERMISSION_RESOLVED. */
export interface TaskToolCall {
  name: string;
  toolCallId: string;
  input: unknown;
  /** How its permission request was resolved, when the agent asked. */
  permission?: PermissionDecision;
  /** From its TOOL_RESULT, once there is one. */
  isError?: boolean;
  output?: unknown;
}

/** What a task did, as runTask reports it. */
export interface TaskReport {
  status: TaskStatus;
  /** The agent's final complete message (AGENT_MESSAGE) of the turn; '' if none. */
  summary: string;
  /** The session the task ran in; '' when no session was started. */
  sessionId: string;
  /** On a fleet: the daemon that ran (or last refused) the task. */
  daemon?: string;
  /** The seq range of the task's events that were read; 0 and 0 when none were. */
  firstSeq: number;
  lastSeq: number;
  toolCalls: TaskToolCall[];
  permissions: PermissionResolution[];
  /** TURN_COMPLETED's `data.usage`, as the provider gave it. */
  usage: Record<string, unknown> | undefined;
  /** TURN_COMPLETED's `data.cost_usd` (or claude's `total_cost_usd`), when reported. */
  costUsd: number | undefined;
  /** Wall-clock time of the whole task, pre-flight and stop included. */
  durationMs: number;
  /** Why, for SKIPPED, HALTED and ABORTED; '' for COMPLETED. */
  error: string;
}

/** The report of a task that never got as far as a session. */
export const reportWithoutSession = (
  status: TaskStatus,
  error: string,
  durationMs: number,
): TaskReport => ({
  status,
  summary: '',
  sessionId: '',
  firstSeq: 0,
  lastSeq: 0,
  toolCalls: [],
  permissions: [],
  usage: undefined,
  costUsd: undefined,
  durationMs,
  error,
});

/** The tool call's id: `tool_call_id` (codex, ACP) or `tool_use_id` (claude). */
const callId = (data: Record<string, unknown>): string =>
  str(data.tool_call_id) || str(data.tool_use_id);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * The events of a task's session folded into what its report says, one
 * event at a time. `settled` tells when reading can stop: the turn that
 * answers the task's input completed, or the session ended.
 */
export class TaskRecord {
  firstSeq = 0;
  lastSeq = 0;
  summary = '';
  readonly toolCalls: TaskToolCall[] = [];
  readonly permissions: PermissionResolution[] = [];
  usage: Record<string, unknown> | undefined;
  costUsd: number | undefined;
  /** Set when reading can stop: undefined error means the turn completed cleanly. */
  private end: { error: string | undefined } | undefined;
  /** The latest AGENT_ERROR: the explanation of a turn or session that then fails. */
  private agentError = '';
  /** Which tool call a permission request is about, by request id. */
  private readonly callOfRequest = new Map<string, string>();
  /** Decisions that arrived before their TOOL_CALL, by tool call id. */
  private readonly earlyDecisions = new Map<string, PermissionDecision>();

  /** The seq of the INPUT_RECEIVED that records the task's prompt: only a later TURN_COMPLETED ends it. */
  constructor(private readonly inputSeq: () => number) {}

  get settled(): boolean {
    return this.end !== undefined;
  }

  add(e: SessionEvent): void {
    if (e.type === 'BUFFER_OVERFLOW') return; // synthetic, not one of the task's events
    if (this.firstSeq === 0) this.firstSeq = e.seq;
    this.lastSeq = e.seq;
    const data = e.data ?? {};
    switch (e.type) {
      case 'AGENT_MESSAGE':
        this.summary = e.text;
        break;
      case 'AGENT_ERROR':
        this.agentError = e.error || e.text;
        break;
      case 'TOOL_CALL':
        this.toolCall(data);
        break;
      case 'TOOL_RESULT':
        this.toolResult(e, data);
        break;
      case 'PERMISSION_REQUESTED': {
        const r = permissionRequest(e);
        if (r?.toolCallId) this.callOfRequest.set(r.requestId, r.toolCallId);
        break;
      }
      case 'PERMISSION_RESOLVED':
        this.resolved(e);
        break;
      case 'TURN_COMPLETED':
        if (e.seq > this.inputSeq()) this.turnCompleted(e, data);
        break;
      default:
        if (isTerminal(e)) this.sessionEnded(e);
    }
  }

  /** The verdict of what was read; a task whose reading stopped early is judged by its caller. */
  outcome(): { status: 'COMPLETED' | 'HALTED'; error: string } {
    if (this.end === undefined) {
      return { status: 'HALTED', error: 'the event stream ended before the turn completed' };
    }
    const { error } = this.end;
    return error === undefined ? { status: 'COMPLETED', error: '' } : { status: 'HALTED', error };
  }

  private toolCall(data: Record<string, unknown>): void {
    const toolCallId = callId(data);
    const call: TaskToolCall = { name: str(data.name), toolCallId, input: data.input };
    const early = this.earlyDecisions.get(toolCallId);
    if (early !== undefined) call.permission = early;
    this.toolCalls.push(call);
  }

  private toolResult(e: SessionEvent, data: Record<string, unknown>): void {
    const call = this.lastCall(callId(data), (c) => c.output === undefined);
    if (!call) return;
    // claude's adapter gives the result as the event's text, the others as `output`.
    call.output = data.output ?? e.text;
    call.isError = data.is_error === true;
  }

  private resolved(e: SessionEvent): void {
    const r = permissionResolution(e);
    if (!r) return;
    this.permissions.push(r);
    const toolCallId = this.callOfRequest.get(r.requestId);
    if (toolCallId === undefined) return;
    const call = this.lastCall(toolCallId, () => true);
    // Some agents ask before they announce the call: keep the decision for it.
    if (call) call.permission = r.decision;
    else this.earlyDecisions.set(toolCallId, r.decision);
  }

  private turnCompleted(e: SessionEvent, data: Record<string, unknown>): void {
    if (data.usage && typeof data.usage === 'object') {
      this.usage = data.usage as Record<string, unknown>;
    }
    this.costUsd = num(data.cost_usd) ?? num(data.total_cost_usd);
    // The turn's end decides: an AGENT_ERROR the agent recovered from in the
    // same turn (claude's API retry notices are AGENT_ERRORs) does not halt
    // the task; it only explains a turn that then fails.
    let error: string | undefined;
    if (e.error) error = e.error;
    else if (data.interrupted === true) error = 'the turn was interrupted';
    else if (data.status === 'failed' || data.is_error === true) {
      error = this.agentError || `the turn failed${e.text ? ` (${e.text})` : ''}`;
    }
    this.end = { error };
  }

  private sessionEnded(e: SessionEvent): void {
    const why = e.error || e.text || (e.type === 'SESSION_FAILED' ? 'failed' : 'stopped');
    const what = e.type === 'SESSION_FAILED' ? 'the session failed' : 'the session ended';
    const agent = this.agentError ? ` (agent error: ${this.agentError})` : '';
    this.end = { error: `${what} before the turn completed: ${why}${agent}` };
  }

  private lastCall(toolCallId: string, ok: (c: TaskToolCall) => boolean): TaskToolCall | undefined {
    return this.toolCalls.findLast((c) => c.toolCallId === toolCallId && ok(c));
  }
}

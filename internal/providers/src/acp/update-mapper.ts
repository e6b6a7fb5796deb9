import type { AgentEvent, EventData } from '../contract/events.js';
import { isRecord, str } from '../contract/json-value.js';
import { contentText, type ToolCallFields, toolCallFields } from './acp-schema.js';
import { TurnUsage } from './turn-usage.js';

/** A complete message is kept up to this many characters (the deltas carry all of it). */
const MAX_MESSAGE_CHARS = 1024 * 1024;

interface Pending {
  thought: boolean;
  /** '' when the agent gives its messages no id. */
  messageId: string;
  text: string;
  truncated: boolean;
}

interface ToolState extends ToolCallFields {
  announced: boolean;
  finished: boolean;
}

/**
 * Turns `session/update` notifications and the tool calls of permission
 * requests into events. Deltas go out as they arrive; the complete AGENT_MESSAGE is
 * emitted when the message ends: its `messageId` changes, a tool call or
 * thought intervenes, or the turn ends (gemini sends no `messageId`, so its
 * text between two tool calls is one message). Thought chunks are deltas
 * and messages of their own, marked `data.thought`.
 */
export class UpdateMapper {
  readonly usage = new TurnUsage();
  private pending: Pending | undefined;
  private tools = new Map<string, ToolState>();

  constructor(private readonly emit: (e: AgentEvent) => void) {}

  /** A new turn: tool state is per turn, cost and context carry over as baselines. */
  begin(): void {
    this.pending = undefined;
    this.tools.clear();
    this.usage.begin();
  }

  /** One `session/update` notification's `update`. */
  update(update: unknown, turnId: string | undefined): void {
    if (!isRecord(update)) return;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        this.chunk(update, false, turnId);
        break;
      case 'agent_thought_chunk':
        this.chunk(update, true, turnId);
        break;
      case 'tool_call':
        this.toolCall(update, turnId);
        break;
      case 'tool_call_update':
        this.toolCallUpdate(update, turnId);
        break;
      case 'usage_update':
        this.usage.update(update);
        break;
      default:
        // available_commands_update, current_mode_update, config_option_update,
        // session_info_update, plan, user_message_chunk (replay): not turn output.
        break;
    }
  }

  /**
   * The tool call a permission request is about, merged with what earlier
   * updates said of it, and announced as a TOOL_CALL if it was not yet:
   * the request is the agent's invocation (some agents send no `tool_call`
   * before asking).
   */
  permissionToolCall(toolCall: unknown, turnId: string | undefined): ToolCallFields | undefined {
    this.flush(turnId);
    const fields = toolCallFields(toolCall);
    if (!fields) return undefined;
    const state = this.merge(fields);
    this.announce(state, turnId);
    return state;
  }

  /** Emits the message being accumulated, if any. */
  flush(turnId: string | undefined): void {
    const p = this.pending;
    this.pending = undefined;
    if (!p || p.text.length === 0) return;
    const data: EventData = {};
    if (p.messageId) data.message_id = p.messageId;
    if (p.thought) data.thought = true;
    if (p.truncated) data.truncated = true;
    this.emit({
      type: 'AGENT_MESSAGE',
      stream: 'stdout',
      text: p.text,
      turnId,
      ...(Object.keys(data).length > 0 ? { data } : {}),
    });
  }

  private chunk(u: Record<string, unknown>, thought: boolean, turnId: string | undefined): void {
    const content = isRecord(u.content) ? u.content : undefined;
    const messageId = str(u.messageId);
    const p = this.pending;
    if (p && (p.thought !== thought || (messageId !== '' && messageId !== p.messageId))) {
      this.flush(turnId);
    }
    if (content?.type !== 'text') {
      // Images, audio and resources are passed on whole; they are not text of the message.
      if (content) {
        this.emit({
          type: 'AGENT_MESSAGE_DELTA',
          stream: 'stdout',
          text: '',
          turnId,
          data: { content, ...(thought ? { thought: true } : {}) },
        });
      }
      return;
    }
    const text = typeof content.text === 'string' ? content.text : '';
    if (text.length === 0) return;
    this.emit({
      type: 'AGENT_MESSAGE_DELTA',
      stream: 'stdout',
      text,
      turnId,
      ...(thought ? { data: { thought: true } } : {}),
    });
    const cur = this.pending ?? { thought, messageId, text: '', truncated: false };
    this.pending = cur;
    cur.messageId ||= messageId;
    if (cur.text.length + text.length > MAX_MESSAGE_CHARS) {
      cur.text += text.slice(0, Math.max(0, MAX_MESSAGE_CHARS - cur.text.length));
      cur.truncated = true;
    } else cur.text += text;
  }

  private toolCall(u: Record<string, unknown>, turnId: string | undefined): void {
    const fields = toolCallFields(u);
    if (!fields) return;
    this.flush(turnId);
    const state = this.merge(fields);
    this.announce(state, turnId);
    this.finishIfDone(state, turnId);
  }

  private toolCallUpdate(u: Record<string, unknown>, turnId: string | undefined): void {
    const fields = toolCallFields(u);
    if (!fields) return;
    const state = this.merge(fields);
    if (state.status !== 'completed' && state.status !== 'failed') return;
    this.flush(turnId);
    // Some agents (gemini after an allowed permission) never send `tool_call`.
    this.announce(state, turnId);
    this.finishIfDone(state, turnId);
  }

  private announce(state: ToolState, turnId: string | undefined): void {
    if (state.announced) return;
    state.announced = true;
    this.emit({
      type: 'TOOL_CALL',
      stream: 'system',
      text: state.title ?? '',
      turnId,
      data: toolData(state),
    });
  }

  private finishIfDone(state: ToolState, turnId: string | undefined): void {
    if (state.finished || (state.status !== 'completed' && state.status !== 'failed')) return;
    state.finished = true;
    const output = toolOutput(state);
    const data: EventData = {
      tool_call_id: state.toolCallId,
      name: state.title ?? '',
      status: state.status,
      is_error: state.status === 'failed',
      output,
    };
    if (state.rawOutput !== undefined) data.raw_output = state.rawOutput;
    if (state.content !== undefined) data.content = state.content;
    this.emit({ type: 'TOOL_RESULT', stream: 'system', text: output, turnId, data });
  }

  private merge(fields: ToolCallFields): ToolState {
    const prev = this.tools.get(fields.toolCallId);
    const state: ToolState = {
      announced: false,
      finished: false,
      ...prev,
      ...fields,
    };
    this.tools.set(fields.toolCallId, state);
    return state;
  }
}

function toolData(s: ToolState): EventData {
  const data: EventData = {
    tool_call_id: s.toolCallId,
    name: s.title ?? '',
    input: s.rawInput ?? {},
  };
  if (s.kind !== undefined) data.kind = s.kind;
  if (s.status !== undefined) data.status = s.status;
  if (s.locations !== undefined) data.locations = s.locations;
  return data;
}

/** A tool's output as text: its text content, else a string rawOutput or rawOutput.output. */
function toolOutput(s: ToolState): string {
  const text = contentText(s.content);
  if (text) return text;
  if (typeof s.rawOutput === 'string') return s.rawOutput;
  if (isRecord(s.rawOutput) && typeof s.rawOutput.output === 'string') return s.rawOutput.output;
  return '';
}

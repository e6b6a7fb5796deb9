import type { AgentEvent, EventData } from '../contract/events.js';
import { type JsonObject, obj, str } from '../contract/json-value.js';

const USAGE_KEYS = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
] as const;

/** A `stream_event` text delta as AGENT_MESSAGE_DELTA; undefined for every other stream event. */
export function deltaEvent(m: JsonObject, turnId: string | undefined): AgentEvent | undefined {
  const ev = obj(m.event);
  const delta = obj(ev.delta);
  if (ev.type !== 'content_block_delta' || delta.type !== 'text_delta') return undefined;
  return {
    type: 'AGENT_MESSAGE_DELTA',
    stream: 'stdout',
    text: str(delta.text),
    turnId,
    data: subagent(m, { index: ev.index ?? 0 }),
  };
}

/**
 * An `assistant` line: its text blocks as AGENT_MESSAGE, its tool uses as
 * TOOL_CALL, or, for the synthetic message claude writes for a failure
 * (authentication_failed…), one AGENT_ERROR.
 */
export function assistantEvents(m: JsonObject, turnId: string | undefined): AgentEvent[] {
  const message = obj(m.message);
  const blocks = Array.isArray(message.content) ? message.content.map(obj) : [];
  if (m.error) {
    const text = blocks.map((b) => str(b.text)).join('') || str(m.error);
    return [
      {
        type: 'AGENT_ERROR',
        stream: 'system',
        text,
        error: str(m.error),
        turnId,
        data: { reason: str(m.error) },
      },
    ];
  }
  const out: AgentEvent[] = [];
  for (const b of blocks) {
    if (b.type === 'text') {
      out.push({
        type: 'AGENT_MESSAGE',
        stream: 'stdout',
        text: str(b.text),
        turnId,
        data: subagent(m, { message_id: str(message.id) }),
      });
    } else if (b.type === 'tool_use') {
      out.push({
        type: 'TOOL_CALL',
        stream: 'system',
        text: str(b.name),
        turnId,
        data: subagent(m, { tool_use_id: str(b.id), name: str(b.name), input: obj(b.input) }),
      });
    }
  }
  return out;
}

/** A `user` line's tool results as TOOL_RESULT (replayed lines carry nothing new). */
export function toolResultEvents(m: JsonObject, turnId: string | undefined): AgentEvent[] {
  const content = obj(m.message).content;
  if (m.isReplay || !Array.isArray(content)) return [];
  return content
    .map(obj)
    .filter((b) => b.type === 'tool_result')
    .map((b) => {
      const out = b.content;
      const text =
        typeof out === 'string'
          ? out
          : Array.isArray(out)
            ? out.map((c) => str(obj(c).text)).join('')
            : '';
      return {
        type: 'TOOL_RESULT',
        stream: 'system',
        text,
        turnId,
        data: subagent(m, {
          tool_use_id: str(b.tool_use_id),
          is_error: b.is_error === true,
          ...(m.tool_use_result !== undefined ? { tool_use_result: m.tool_use_result } : {}),
        }),
      };
    });
}

/** A `system` `api_retry` line: claude is retrying a failed API call. */
export function retryEvent(m: JsonObject, turnId: string | undefined): AgentEvent {
  const attempt = `${m.attempt ?? '?'}/${m.max_retries ?? '?'}`;
  const status = m.error_status == null ? '' : ` (HTTP ${m.error_status})`;
  return {
    type: 'AGENT_ERROR',
    stream: 'system',
    text: `claude API request failed${status}: ${str(m.error) || 'unknown error'}; retry ${attempt}`,
    error: str(m.error) || 'api_retry',
    turnId,
    data: {
      reason: 'api_retry',
      attempt: m.attempt ?? null,
      max_retries: m.max_retries ?? null,
      retry_delay_ms: m.retry_delay_ms ?? null,
      error_status: m.error_status ?? null,
    },
  };
}

/** What the `system` `init` line says about the session, repeated in each TURN_COMPLETED. */
export function initFacts(m: JsonObject): EventData {
  return {
    model: m.model ?? null,
    claude_code_version: m.claude_code_version ?? null,
    claude_session_id: m.session_id ?? null,
    permission_mode: m.permissionMode ?? null,
  };
}

/** TURN_COMPLETED's data from a `result` line: usage, cost, timings, stop reason. */
export function resultData(m: JsonObject): EventData {
  const usage = obj(m.usage);
  return {
    subtype: str(m.subtype),
    is_error: m.is_error === true,
    usage: Object.fromEntries(
      USAGE_KEYS.filter((k) => typeof usage[k] === 'number').map((k) => [k, usage[k]]),
    ),
    total_cost_usd: m.total_cost_usd ?? null,
    duration_ms: m.duration_ms ?? null,
    num_turns: m.num_turns ?? null,
    stop_reason: m.stop_reason ?? null,
    permission_denials: Array.isArray(m.permission_denials) ? m.permission_denials : [],
  };
}

/** Adds the parent tool call when the line comes from a sub-agent (Task tool). */
function subagent(m: JsonObject, data: EventData): EventData {
  return m.parent_tool_use_id ? { ...data, parent_tool_use_id: m.parent_tool_use_id } : data;
}

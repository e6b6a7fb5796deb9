import type { AgentEvent, EventData } from '../contract/events.js';
import { type JsonObject, obj, str } from '../contract/json-value.js';

/** Notifications that are advice, not failure: kept, but not as AGENT_ERROR. */
const WARNING_METHODS: ReadonlySet<string> = new Set([
  'warning',
  'configWarning',
  'deprecationNotice',
]);

/** `error` notification: an API or transport failure, maybe being retried by codex. */
export function errorEvent(p: JsonObject, turnId: string | undefined): AgentEvent {
  const error = obj(p.error);
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

/** `warning` and friends: diagnostics, recorded like the agent's stderr; undefined for other methods. */
export function warningEvent(
  method: string,
  p: JsonObject,
  turnId: string | undefined,
): AgentEvent | undefined {
  if (!WARNING_METHODS.has(method)) return undefined;
  const text = str(p.message) || str(p.summary) || JSON.stringify(p);
  const data: EventData = { warning: method };
  if (p.details != null) data.details = p.details;
  return { type: 'STDERR', stream: 'system', text, turnId, data };
}

/** A failed turn's AGENT_ERROR, from `turn/completed` with status "failed". */
export function turnFailedEvent(error: JsonObject, turnId: string): AgentEvent {
  const message = str(error.message);
  return {
    type: 'AGENT_ERROR',
    stream: 'system',
    text: `codex turn failed: ${message || 'no reason given'}`,
    error: message || 'turn failed',
    turnId,
    data: {
      reason: 'turn_failed',
      codex_error_info: error.codexErrorInfo ?? null,
      additional_details: error.additionalDetails ?? null,
    },
  };
}

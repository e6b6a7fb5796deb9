import { type OptionRefusal, PERMISSION_DECISIONS } from '@agent-bridge/providers';
import { invalid } from './errors.js';
import { redactSecrets } from './redaction/redactor.js';
import type { PermissionAnswer } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `id` has the form of a session id (a lowercase UUID). */
export const isSessionId = (id: string): boolean => UUID.test(id);
const SUBSCRIBER = /^[A-Za-z0-9._:-]{1,128}$/;

export function checkSessionId(id: string): void {
  if (!UUID.test(id)) {
    throw invalid(
      `session_id must be a lowercase UUID like "0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e", got ${preview(id)}`,
      'session_id_invalid',
    );
  }
}

/** A session's name or role: 1-64 of [A-Za-z0-9._-], from a letter or digit. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Whether `value` is a label: a session name or role, a post's category or target. */
export const isLabel = (value: string): boolean => LABEL.test(value);

/**
 * A session's `name` (`field` "name") or `role` ("role"): empty (none), or
 * a label; a name never looks like a session id, so an address is one or
 * the other.
 */
export function checkSessionLabel(value: string, field: 'name' | 'role'): void {
  if (value === '') return;
  if (!LABEL.test(value)) {
    throw invalid(
      `${field} must be 1-64 characters of A-Z a-z 0-9 . _ - starting with a letter or digit, got ${preview(value)}`,
      `session_${field}_invalid`,
    );
  }
  if (field === 'name' && UUID.test(value.toLowerCase())) {
    throw invalid(
      `name ${preview(value)} looks like a session id: a name must not be a UUID`,
      'session_name_invalid',
    );
  }
}

export function checkSubscriberId(id: string, required: boolean): void {
  if (id === '' && !required) return;
  if (!SUBSCRIBER.test(id)) {
    throw invalid(
      'subscriber_id must be 1-128 characters of [A-Za-z0-9._:-]',
      'subscriber_id_invalid',
    );
  }
}

/** Characters of caller input a message shows at most. */
const PREVIEW_CHARS = 64;

/**
 * Caller input as an error message may show it, and the only way messages
 * show it: secrets replaced (built-in rules; the server redacts every
 * message again with the configured ones), then cut to 64 characters, then
 * JSON-quoted so control characters stay visible. Redaction comes first so
 * the cut can never leave a secret's prefix that no rule recognises.
 */
export function preview(s: string): string {
  const r = redactSecrets(s);
  return JSON.stringify(r.length > PREVIEW_CHARS ? `${r.slice(0, PREVIEW_CHARS)}…` : r);
}

/** The message for refused `agent_opts`: the field, the key or value (previewed) and the rule. */
export function refusedOptions(
  r: OptionRefusal,
  options: Readonly<Record<string, string>>,
): string {
  return r.refused === 'key'
    ? `agent_opts key ${preview(r.key)} ${r.rule}`
    : `agent_opts ${preview(r.key)}: value ${preview(options[r.key] ?? '')} ${r.rule}`;
}

const MAX_REQUEST_ID_BYTES = 128;
const MAX_REASON_BYTES = 1024;

/** Checks a RespondPermission's request id, decision and reason (the session id is checked on lookup). */
export function checkPermissionAnswer(a: PermissionAnswer): void {
  if (a.requestId === '' || Buffer.byteLength(a.requestId, 'utf8') > MAX_REQUEST_ID_BYTES) {
    throw invalid(
      `request_id must be 1-${MAX_REQUEST_ID_BYTES} bytes (the request_id of a PERMISSION_REQUESTED event)`,
      'permission_request_id_invalid',
    );
  }
  if (!PERMISSION_DECISIONS.includes(a.decision)) {
    throw invalid(
      `decision must be one of ${PERMISSION_DECISIONS.join(', ')}, got ${preview(a.decision)}`,
      'permission_decision_invalid',
    );
  }
  const reasonBytes = Buffer.byteLength(a.reason, 'utf8');
  if (reasonBytes > MAX_REASON_BYTES) {
    throw invalid(
      `reason is ${reasonBytes} bytes; the limit is ${MAX_REASON_BYTES}`,
      'permission_reason_too_long',
    );
  }
}

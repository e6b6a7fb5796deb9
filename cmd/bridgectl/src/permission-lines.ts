import {
  awaitsAnswer,
  type PermissionDecision,
  type PermissionRequest,
  type PermissionResolution,
  permissionRequest,
  permissionResolution,
  type SessionEvent,
} from '@agent-bridge/bridgeclient';
import { compact, type Style } from './terminal-style.js';

/** A decision as people say it. */
export const DECISION_WORDS: Record<PermissionDecision, string> = {
  allow_once: 'allowed once',
  allow_session: 'allowed for the session',
  deny: 'denied',
};

/** A time to the second, in UTC: the same on every terminal, and what the daemon logs. */
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A permission request in two lines: what the agent wants, then (when it
 * waits for an answer) the answers offered and what happens if none comes.
 */
function requestLines(r: PermissionRequest, s: Style): string {
  const what = `${s.bold(s.yellow(`? ${r.tool || 'tool'}`))} ${compact(r.summary)}`;
  if (!awaitsAnswer(r)) return `${what} ${s.dim(`(permissions: ${r.mode})`)}`;
  const expiry = r.expiresAt
    ? ` · ${r.fallback ?? 'deny'} at ${isoSeconds(r.expiresAt)} unless answered`
    : '';
  return `${what}\n${s.dim(`  waits for an answer: ${r.options.join(', ')}${expiry} · request ${r.requestId}`)}`;
}

/** Who decided, and for a caller who they are (token subject and issuer, certificate). */
function decidedBy(r: PermissionResolution): string {
  if (r.decidedBy !== 'caller' || !r.caller) return `by ${r.decidedBy || 'unknown'}`;
  const { subject, issuer, certificate } = r.caller;
  return `by caller ${subject}${issuer ? ` (issuer ${issuer}${certificate ? `, certificate ${certificate}` : ''})` : ''}`;
}

function resolutionLine(r: PermissionResolution, s: Style): string {
  const denied = r.decision === 'deny';
  const head = `${denied ? '✗' : '✓'} ${r.tool || 'tool'} ${DECISION_WORDS[r.decision]}`;
  const reason = r.reason ? ` · reason: ${compact(r.reason)}` : '';
  return `${denied ? s.red(head) : s.green(head)} ${s.dim(`${decidedBy(r)}${reason}`)}`;
}

/** How a PERMISSION_REQUESTED or PERMISSION_RESOLVED event reads; undefined for any other. */
export function permissionLines(e: SessionEvent, s: Style): string | undefined {
  const request = permissionRequest(e);
  if (request) return requestLines(request, s);
  const resolution = permissionResolution(e);
  return resolution ? resolutionLine(resolution, s) : undefined;
}

import { str } from './private/data-fields.js';
import type { SessionEvent } from './types.js';

/** An answer to an agent's permission request (the contract's PermissionDecision). */
export type PermissionDecision = 'allow_once' | 'allow_session' | 'deny';

const DECISIONS: readonly PermissionDecision[] = ['allow_once', 'allow_session', 'deny'];

/** An agent's request to use a tool: what a PERMISSION_REQUESTED event says, typed. */
export interface PermissionRequest {
  sessionId: string;
  /** Seq of the PERMISSION_REQUESTED event. */
  seq: number;
  /** What to pass to `respondPermission`. */
  requestId: string;
  /** The tool as the agent names it ("Bash", "commandExecution", "execute"). */
  tool: string;
  /** The tool's input in one line. */
  summary: string;
  /** The tool's input (redacted by the daemon). */
  input: unknown;
  /** The decisions the agent accepts for this request. */
  options: PermissionDecision[];
  toolCallId: string;
  turnId: string;
  /** The provider's `permissions`: only "ask" waits for an answer. */
  mode: 'ask' | 'allow' | 'deny';
  /** While it waits: when `fallback` is applied if nobody answers. */
  expiresAt: Date | undefined;
  /** While it waits: the decision taken when nobody answers. */
  fallback: PermissionDecision | undefined;
}

/** How a permission request ended: what a PERMISSION_RESOLVED event says, typed. */
export interface PermissionResolution {
  sessionId: string;
  seq: number;
  requestId: string;
  tool: string;
  decision: PermissionDecision;
  /**
   * "caller" (a respondPermission), "policy", "auto_allow", "session_grant",
   * or why nobody did: "timeout", "interrupt", "turn_end", "stop", "shutdown", "exit".
   */
  decidedBy: string;
  reason: string;
  /** Who answered, for "caller": the token's subject and issuer, the certificate's identity. */
  caller: { subject: string; issuer: string; certificate: string } | undefined;
}

const decision = (v: unknown): PermissionDecision | undefined =>
  DECISIONS.includes(v as PermissionDecision) ? (v as PermissionDecision) : undefined;

/** The request a PERMISSION_REQUESTED event carries; undefined for any other event. */
export function permissionRequest(e: SessionEvent): PermissionRequest | undefined {
  if (e.type !== 'PERMISSION_REQUESTED') return undefined;
  const d = e.data ?? {};
  const mode = str(d.mode);
  const expires = str(d.expires_at);
  return {
    sessionId: e.sessionId,
    seq: e.seq,
    requestId: str(d.request_id),
    tool: str(d.tool),
    summary: str(d.summary),
    input: d.input,
    options: Array.isArray(d.options)
      ? d.options.map(decision).filter((o): o is PermissionDecision => o !== undefined)
      : [],
    toolCallId: str(d.tool_call_id),
    turnId: e.turnId,
    mode: mode === 'allow' || mode === 'deny' ? mode : 'ask',
    expiresAt: expires ? new Date(expires) : undefined,
    fallback: decision(d.default),
  };
}

/** The outcome a PERMISSION_RESOLVED event carries; undefined for any other event. */
export function permissionResolution(e: SessionEvent): PermissionResolution | undefined {
  if (e.type !== 'PERMISSION_RESOLVED') return undefined;
  const d = e.data ?? {};
  const c =
    d.caller && typeof d.caller === 'object' ? (d.caller as Record<string, unknown>) : undefined;
  return {
    sessionId: e.sessionId,
    seq: e.seq,
    requestId: str(d.request_id),
    tool: str(d.tool),
    decision: decision(d.decision) ?? 'deny',
    decidedBy: str(d.decided_by),
    reason: str(d.reason),
    caller: c
      ? { subject: str(c.subject), issuer: str(c.issuer), certificate: str(c.certificate) }
      : undefined,
  };
}

/** True when a request waits for a client's answer (and was not answered by policy at once). */
export const awaitsAnswer = (r: PermissionRequest): boolean =>
  r.mode === 'ask' && r.expiresAt !== undefined;

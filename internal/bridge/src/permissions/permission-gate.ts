import type {
  AgentEvent,
  EventData,
  PermissionAsk,
  PermissionDecision,
  PermissionVerdict,
} from '@agent-bridge/providers';
import { type EndCause, endCause, type Scope, scope } from '@agent-bridge/scope';
import type { Audit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import { BridgeError, precondition } from '../errors.js';
import type { Caller, StartRequest } from '../types.js';
import { type PermissionPolicy, toolMatcher } from './permission-policy.js';

/** Resolved requests remembered per session, so a late answer hears how (FAILED_PRECONDITION). */
const REMEMBERED_RESOLUTIONS = 1024;

export interface PermissionGateDeps {
  policy: PermissionPolicy;
  clock: Clock;
  timers: Timers;
  /** Stores one event of the session (redacted) and returns its seq. */
  record(event: AgentEvent): number;
  audit: Audit;
  sessionId: string;
  projectId: string;
  /** Who started the session: the audit record's identity for decisions no caller made. */
  startedBy?: Caller | undefined;
}

interface Pending {
  tool: string;
  options: readonly PermissionDecision[];
  turnId: string | undefined;
  resolve(verdict: PermissionVerdict): void;
  /** The request's lifetime: inside its turn's, with the request's own timeout. */
  scope: Scope;
}

/**
 * A session's permission requests: each is recorded (PERMISSION_REQUESTED),
 * decided by a session grant, `auto_allow`, the policy or a client's answer,
 * and recorded again (PERMISSION_RESOLVED) and audited once decided. A
 * request waiting for a client lives in a scope inside its turn's: when its
 * time is up, its turn ends or is interrupted, or the session ends, the
 * scope ends and the request is resolved by the default for that cause.
 * The agent always gets its answer, exactly once.
 */
export class PermissionGate {
  private readonly pending = new Map<string, Pending>();
  private readonly resolved = new Map<
    string,
    { decision: PermissionDecision; decidedBy: string }
  >();
  /** Tools a client allowed for the rest of the session. */
  private readonly granted = new Set<string>();
  private readonly autoAllowed: (tool: string) => boolean;
  private count = 0;

  constructor(private readonly deps: PermissionGateDeps) {
    this.autoAllowed = toolMatcher(deps.policy.autoAllow);
  }

  /** Requests still waiting for an answer. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Decides `ask`, at once or when answered; the request lives no longer than `within`. */
  ask(ask: PermissionAsk, within: AbortSignal): Promise<PermissionVerdict> {
    const { policy } = this.deps;
    const requestId = `perm-${++this.count}`;
    const immediate = this.immediateDecision(ask);
    const waits = immediate === undefined && !within.aborted;
    const data: EventData = {
      ...ask.details,
      request_id: requestId,
      tool: ask.tool,
      summary: ask.summary,
      input: ask.input ?? null,
      options: [...ask.options],
      mode: policy.mode,
    };
    if (ask.toolCallId) data.tool_call_id = ask.toolCallId;
    if (waits) {
      data.expires_at = new Date(this.deps.clock.now() + policy.timeoutMs).toISOString();
      data.default = this.fallback(ask.options);
    }
    this.deps.record({
      type: 'PERMISSION_REQUESTED',
      stream: 'system',
      text: ask.summary ? `${ask.tool}: ${ask.summary}` : ask.tool,
      ...(ask.turnId ? { turnId: ask.turnId } : {}),
      data,
    });
    return new Promise((resolve) => {
      const entry: Pending = {
        tool: ask.tool,
        options: ask.options,
        turnId: ask.turnId,
        resolve,
        scope: scope(within, {
          timeoutMs: policy.timeoutMs,
          after: (ms, fn, s) => this.deps.timers.after(ms, fn, s),
        }),
      };
      this.pending.set(requestId, entry);
      if (immediate) {
        this.settle(requestId, immediate.decision, immediate.decidedBy);
        return;
      }
      const unanswered = () => {
        const cause = endCause(entry.scope.signal) ?? 'exit';
        this.settle(requestId, this.unanswered(cause, ask.options), cause);
      };
      if (entry.scope.signal.aborted) unanswered();
      else entry.scope.signal.addEventListener('abort', unanswered, { once: true });
    });
  }

  /**
   * A client's answer. Returns the seq of PERMISSION_RESOLVED. Throws
   * not_found for an id this session never issued, failed_precondition for
   * one already resolved or a decision the agent does not offer.
   */
  respond(requestId: string, decision: PermissionDecision, reason: string, caller: Caller): number {
    const entry = this.pending.get(requestId);
    if (!entry) {
      const done = this.resolved.get(requestId);
      if (done) {
        throw precondition(
          `permission request ${requestId} is already resolved: ${done.decision} (decided by ${done.decidedBy})`,
          'permission_already_resolved',
        );
      }
      throw new BridgeError(
        'not_found',
        `permission request ${requestId} not found in session ${this.deps.sessionId}`,
        'permission_request_not_found',
      );
    }
    if (!entry.options.includes(decision)) {
      throw precondition(
        `the agent does not offer ${decision} for permission request ${requestId} (it offers ${entry.options.join(', ')})`,
        'permission_decision_not_offered',
      );
    }
    return this.settle(requestId, decision, 'caller', reason, caller);
  }

  /**
   * The decision for a request nobody answered: the policy's fallback,
   * except in a turn that is cancelled or over, whose requests are refused
   * whatever the fallback says: the caller asked the turn to stop, an ACP
   * agent is told "cancelled" after session/cancel, and an allow would let
   * the agent start something in a turn that is ending.
   */
  private unanswered(cause: EndCause, options: readonly PermissionDecision[]): PermissionDecision {
    return cause === 'interrupt' || cause === 'turn_end' ? 'deny' : this.fallback(options);
  }

  private immediateDecision(
    ask: PermissionAsk,
  ): { decision: PermissionDecision; decidedBy: string } | undefined {
    const allow = (by: string) => ({
      decision: this.offered('allow_once', ask.options),
      decidedBy: by,
    });
    if (this.granted.has(ask.tool)) return allow('session_grant');
    if (this.autoAllowed(ask.tool)) return allow('auto_allow');
    switch (this.deps.policy.mode) {
      case 'allow':
        return allow('policy');
      case 'deny':
        return { decision: 'deny', decidedBy: 'policy' };
      default:
        return undefined;
    }
  }

  private fallback(options: readonly PermissionDecision[]): PermissionDecision {
    return this.deps.policy.fallback === 'allow' ? this.offered('allow_once', options) : 'deny';
  }

  /** `wanted` when the agent offers it, else deny: an allow is never widened to fit. */
  private offered(
    wanted: PermissionDecision,
    options: readonly PermissionDecision[],
  ): PermissionDecision {
    return options.includes(wanted) ? wanted : 'deny';
  }

  private settle(
    requestId: string,
    decision: PermissionDecision,
    decidedBy: string,
    reason = '',
    caller?: Caller,
  ): number {
    const entry = this.pending.get(requestId);
    if (!entry) return 0;
    this.pending.delete(requestId);
    // Disarms the timeout and lets go of the turn's signal (its listener now finds nothing).
    entry.scope.end();
    this.remember(requestId, decision, decidedBy);
    if (decision === 'allow_session') this.granted.add(entry.tool);
    const data: EventData = {
      request_id: requestId,
      decision,
      tool: entry.tool,
      decided_by: decidedBy,
    };
    if (reason) data.reason = reason;
    if (caller) {
      data.caller = {
        subject: caller.subject,
        issuer: caller.identity?.iss ?? '',
        certificate: caller.identity?.certIdentity ?? '',
      };
    }
    const seq = this.deps.record({
      type: 'PERMISSION_RESOLVED',
      stream: 'system',
      text: `${entry.tool}: ${decision} (${decidedBy === 'caller' ? `by ${caller?.subject || 'a client'}` : decidedBy})`,
      ...(entry.turnId ? { turnId: entry.turnId } : {}),
      data,
    });
    const identity = (caller ?? this.deps.startedBy)?.identity;
    this.deps.audit({
      kind: 'permission',
      outcome: decision === 'deny' ? 'deny' : 'allow',
      reason: decision === 'deny' ? 'permission_deny' : 'permission_allow',
      detail: `${entry.tool} ${requestId}: ${decision} by ${decidedBy}${reason ? ` (${reason})` : ''}`,
      sessionId: this.deps.sessionId,
      projectId: this.deps.projectId,
      ...(identity ? { identity } : {}),
    });
    entry.resolve({ decision, decidedBy, reason });
    return seq;
  }

  private remember(requestId: string, decision: PermissionDecision, decidedBy: string): void {
    this.resolved.set(requestId, { decision, decidedBy });
    if (this.resolved.size > REMEMBERED_RESOLUTIONS) {
      const oldest = this.resolved.keys().next().value;
      if (oldest !== undefined) this.resolved.delete(oldest);
    }
  }
}

/** The gate of the session started by `request`, recording through `record`. */
export function permissionGate(
  request: StartRequest,
  deps: Omit<PermissionGateDeps, 'policy' | 'record' | 'sessionId' | 'projectId'> & {
    settings: { permissionPolicy(providerId: string): PermissionPolicy };
  },
  record: (event: AgentEvent) => number,
): PermissionGate {
  return new PermissionGate({
    policy: deps.settings.permissionPolicy(request.provider),
    clock: deps.clock,
    timers: deps.timers,
    record,
    audit: deps.audit,
    sessionId: request.sessionId,
    projectId: request.projectId,
    startedBy: deps.startedBy,
  });
}

import type { AgentEvent, EventData } from '../events.js';
import { str } from '../json-value.js';

/** The server→client requests that ask the bridge to decide something. */
const APPROVAL_METHODS = {
  command: 'item/commandExecution/requestApproval',
  fileChange: 'item/fileChange/requestApproval',
  permissions: 'item/permissions/requestApproval',
  userInput: 'item/tool/requestUserInput',
} as const;

export interface ApprovalAnswer {
  /** The JSON-RPC result sent back to codex. */
  result: Record<string, unknown>;
  /** The TOOL_CALL that records the request and its answer. */
  event: AgentEvent;
}

type Params = Record<string, unknown>;

/**
 * The decision string for a command or file-change approval. "allow" grants
 * this one request ("accept", never "acceptForSession": a session-wide grant
 * would let later commands skip the policy). "deny" prefers "decline" (the
 * turn goes on without the action); when codex lists its choices and
 * "decline" is not among them (0.169 offers accept / amendment / cancel for
 * commands), it is "cancel", which also ends the turn.
 */
export function pickDecision(policy: 'allow' | 'deny', available: unknown): string {
  const offered = Array.isArray(available)
    ? available.filter((d): d is string => typeof d === 'string')
    : undefined;
  if (policy === 'allow') return 'accept';
  if (!offered || offered.length === 0 || offered.includes('decline')) return 'decline';
  return offered.includes('cancel') ? 'cancel' : 'decline';
}

/** Keeps only the requested grants that are set: an allowed request gets exactly what it asked for. */
function requestedGrants(permissions: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (permissions && typeof permissions === 'object') {
    for (const [k, v] of Object.entries(permissions)) if (v != null) out[k] = v;
  }
  return out;
}

/**
 * Answers one approval or user-input request by the provider's policy and
 * describes it as a TOOL_CALL event (`data.permission` is the policy's
 * answer, `data.decision` what codex was told). Undefined for a method that
 * is not an approval.
 */
export function answerApproval(
  method: string,
  params: Params,
  policy: 'allow' | 'deny',
  turnId: string | undefined,
): ApprovalAnswer | undefined {
  const base = (name: string, input: unknown, decision: string, text: string): AgentEvent => {
    const data: EventData = {
      tool_call_id: str(params.itemId),
      name,
      input,
      approval_request: method,
      permission: policy,
      decision,
    };
    if (params.reason != null) data.reason = params.reason;
    return {
      type: 'TOOL_CALL',
      stream: 'system',
      text,
      turnId: str(params.turnId) || turnId,
      data,
    };
  };
  switch (method) {
    case APPROVAL_METHODS.command: {
      const decision = pickDecision(policy, params.availableDecisions);
      const command = str(params.command);
      return {
        result: { decision },
        event: base(
          'commandExecution',
          { command: params.command ?? null, cwd: params.cwd ?? null },
          decision,
          `approval for command ${JSON.stringify(command)}: ${decision}`,
        ),
      };
    }
    case APPROVAL_METHODS.fileChange: {
      const decision = pickDecision(policy, params.availableDecisions);
      return {
        result: { decision },
        event: base(
          'fileChange',
          { grant_root: params.grantRoot ?? null },
          decision,
          `approval for file change: ${decision}`,
        ),
      };
    }
    case APPROVAL_METHODS.permissions: {
      // The answer is a grant, not a decision: the requested profile, or nothing.
      const permissions = policy === 'allow' ? requestedGrants(params.permissions) : {};
      const decision = policy === 'allow' ? 'granted' : 'none granted';
      return {
        result: { permissions, scope: 'turn' },
        event: base(
          'permissions',
          { permissions: params.permissions ?? null },
          decision,
          `permission request: ${decision}`,
        ),
      };
    }
    case APPROVAL_METHODS.userInput: {
      // Nobody is there to answer: empty answers, whatever the policy.
      const e = base(
        'requestUserInput',
        { questions: params.questions ?? [] },
        'no answer',
        'the agent asked for user input; the bridge has no one to ask, so it got no answers',
      );
      (e.data as EventData).permission = 'deny';
      return { result: { answers: {} }, event: e };
    }
    default:
      return undefined;
  }
}

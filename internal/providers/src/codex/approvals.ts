import type { AgentEvent } from '../contract/events.js';
import { str } from '../contract/json-value.js';
import {
  PERMISSION_DECISIONS,
  type PermissionAsk,
  type PermissionDecision,
  summarizeInput,
} from '../contract/permission.js';

/** The server→client requests that ask the bridge to decide something. */
const APPROVAL_METHODS = {
  command: 'item/commandExecution/requestApproval',
  fileChange: 'item/fileChange/requestApproval',
  permissions: 'item/permissions/requestApproval',
  userInput: 'item/tool/requestUserInput',
} as const;

type Params = Record<string, unknown>;

/** An approval request put as a PermissionAsk, and how to word the decision for codex. */
export interface Approval {
  ask: PermissionAsk;
  /** The JSON-RPC result that carries `decision` to codex. */
  result(decision: PermissionDecision): Record<string, unknown>;
}

/**
 * The decision string for a command or file-change approval. Any allow is
 * "accept", never "acceptForSession": codex is granted one use at a time and
 * the session's gate remembers an allow_session itself, so every later use
 * is still asked and recorded. A denial prefers "decline" (the turn goes on
 * without the action); when codex lists its choices and "decline" is not
 * among them (0.169 offers accept / amendment / cancel for commands), it is
 * "cancel", which also ends the turn.
 */
export function pickDecision(decision: PermissionDecision, available: unknown): string {
  const offered = offeredDecisions(available);
  if (decision !== 'deny') return 'accept';
  if (!offered || offered.length === 0 || offered.includes('decline')) return 'decline';
  return offered.includes('cancel') ? 'cancel' : 'decline';
}

function offeredDecisions(available: unknown): string[] | undefined {
  return Array.isArray(available)
    ? available.filter((d): d is string => typeof d === 'string')
    : undefined;
}

/** What the client may answer: deny only, when codex lists its choices and "accept" is not one. */
function choices(available: unknown): readonly PermissionDecision[] {
  const offered = offeredDecisions(available);
  return offered && offered.length > 0 && !offered.includes('accept')
    ? ['deny']
    : PERMISSION_DECISIONS;
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
 * A command, file-change or permissions approval request as a PermissionAsk
 * (`tool` is "commandExecution", "fileChange" or "permissions"). Undefined
 * for a method that is not one.
 */
export function approvalRequest(
  method: string,
  params: Params,
  turnId: string | undefined,
): Approval | undefined {
  const ask = (
    tool: string,
    input: Record<string, unknown>,
    summary: string,
    offered = PERMISSION_DECISIONS,
  ) => {
    const toolCallId = str(params.itemId);
    const turn = str(params.turnId) || turnId;
    return {
      tool,
      summary,
      input,
      options: offered,
      ...(toolCallId ? { toolCallId } : {}),
      ...(turn ? { turnId: turn } : {}),
      details: {
        approval_request: method,
        ...(params.reason != null ? { agent_reason: params.reason } : {}),
      },
    } satisfies PermissionAsk;
  };
  switch (method) {
    case APPROVAL_METHODS.command: {
      const input = { command: params.command ?? null, cwd: params.cwd ?? null };
      return {
        ask: ask(
          'commandExecution',
          input,
          summarizeInput(input),
          choices(params.availableDecisions),
        ),
        result: (d) => ({ decision: pickDecision(d, params.availableDecisions) }),
      };
    }
    case APPROVAL_METHODS.fileChange: {
      const input = { grant_root: params.grantRoot ?? null };
      const summary = params.grantRoot
        ? `write under ${str(params.grantRoot)}`
        : 'apply a file change';
      return {
        ask: ask('fileChange', input, summary, choices(params.availableDecisions)),
        result: (d) => ({ decision: pickDecision(d, params.availableDecisions) }),
      };
    }
    case APPROVAL_METHODS.permissions: {
      const input = { permissions: params.permissions ?? null };
      // The answer is a grant, not a decision: the requested profile, or nothing.
      return {
        ask: ask('permissions', input, summarizeInput(params.permissions ?? {})),
        result: (d) => ({
          permissions: d === 'deny' ? {} : requestedGrants(params.permissions),
          scope: 'turn',
        }),
      };
    }
    default:
      return undefined;
  }
}

/**
 * Answers codex's request for user input: nobody is there to answer, so it
 * gets empty answers, recorded as a TOOL_CALL. Undefined for another method.
 */
export function answerUserInput(
  method: string,
  params: Params,
  turnId: string | undefined,
): { result: Record<string, unknown>; event: AgentEvent } | undefined {
  if (method !== APPROVAL_METHODS.userInput) return undefined;
  const toolCallId = str(params.itemId);
  return {
    result: { answers: {} },
    event: {
      type: 'TOOL_CALL',
      stream: 'system',
      text: 'the agent asked for user input; the bridge has no one to ask, so it got no answers',
      turnId: str(params.turnId) || turnId,
      data: {
        tool_call_id: toolCallId,
        name: 'requestUserInput',
        input: { questions: params.questions ?? [] },
        approval_request: method,
        decision: 'no answer',
      },
    },
  };
}

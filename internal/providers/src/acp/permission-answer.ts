import { isRecord } from '../contract/json-value.js';
import { PERMISSION_DECISIONS, type PermissionDecision } from '../contract/permission.js';
import type { PermissionOption, PermissionOutcome } from './acp-schema.js';

/** The well-formed options of a `session/request_permission`. */
export function offeredOptions(options: unknown): PermissionOption[] {
  return Array.isArray(options)
    ? options.filter(
        (o): o is PermissionOption =>
          isRecord(o) && typeof o.optionId === 'string' && typeof o.kind === 'string',
      )
    : [];
}

/**
 * What a client may answer. With allow_once offered, every decision (an
 * allow_session is kept by the session's gate); with only allow_always, an
 * allow must be for the session; with no allow option, deny only.
 */
export function decisionsOffered(
  offered: readonly PermissionOption[],
): readonly PermissionDecision[] {
  if (offered.some((o) => o.kind === 'allow_once')) return PERMISSION_DECISIONS;
  if (offered.some((o) => o.kind === 'allow_always')) return ['allow_session', 'deny'];
  return ['deny'];
}

/**
 * The outcome that carries `decision` to the agent. allow_once is granted
 * as allow_once, and so is allow_session when the agent offers allow_once:
 * the session's gate remembers the grant itself, so each later use is still
 * asked and recorded. allow_session takes allow_always only when that is
 * the agent's one allow option. A denial takes reject_once, else
 * reject_always (remembering a refusal never widens what the agent may do).
 * With no matching option the request is answered "cancelled", which
 * agents treat as not granted.
 */
export function answerPermission(
  decision: PermissionDecision,
  offered: readonly PermissionOption[],
): PermissionOutcome {
  const wanted = {
    allow_once: ['allow_once'],
    allow_session: ['allow_once', 'allow_always'],
    deny: ['reject_once', 'reject_always'],
  }[decision];
  for (const kind of wanted) {
    const option = offered.find((o) => o.kind === kind);
    if (option) return { outcome: 'selected', optionId: option.optionId };
  }
  return { outcome: 'cancelled' };
}

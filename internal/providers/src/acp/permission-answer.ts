import { isRecord } from '../json-value.js';
import type { PermissionOption, PermissionOutcome } from './acp-schema.js';

export interface PermissionAnswer {
  outcome: PermissionOutcome;
  /** What the policy wanted, whether or not the agent offered a matching option. */
  decision: 'allow' | 'deny';
  /** The option chosen, when one was. */
  option?: PermissionOption;
}

/**
 * Picks the answer to a `session/request_permission` by the provider's
 * policy. "allow" only ever grants once: an "always" option would make the
 * agent remember the grant beyond the request the policy saw. "deny" takes
 * reject_once, else reject_always (remembering a refusal never widens what
 * the agent may do). With no matching option the request is answered
 * "cancelled", which agents treat as not granted.
 */
export function answerPermission(policy: 'allow' | 'deny', options: unknown): PermissionAnswer {
  const offered: PermissionOption[] = Array.isArray(options)
    ? options.filter(
        (o): o is PermissionOption =>
          isRecord(o) && typeof o.optionId === 'string' && typeof o.kind === 'string',
      )
    : [];
  const wanted = policy === 'allow' ? ['allow_once'] : ['reject_once', 'reject_always'];
  for (const kind of wanted) {
    const option = offered.find((o) => o.kind === kind);
    if (option) {
      return {
        outcome: { outcome: 'selected', optionId: option.optionId },
        decision: policy,
        option,
      };
    }
  }
  return { outcome: { outcome: 'cancelled' }, decision: policy };
}

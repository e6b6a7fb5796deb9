import type { AgentEvent } from '@agent-bridge/providers';
import type { SessionFacts } from '../types.js';

/**
 * Keeps what a restart must know of a live session in its facts: the turn
 * running and the permission requests waiting. Returns whether `ev`
 * changed them (the session's record is then saved again, committed with
 * the event).
 */
export function trackLiveFacts(facts: SessionFacts, ev: AgentEvent): boolean {
  switch (ev.type) {
    case 'TURN_STARTED':
      facts.runningTurn = ev.turnId ?? '';
      return true;
    case 'TURN_COMPLETED':
      if (facts.runningTurn === undefined) return false;
      facts.runningTurn = undefined;
      return true;
    case 'PERMISSION_REQUESTED': {
      const d = ev.data ?? {};
      facts.waitingRequests = [
        ...(facts.waitingRequests ?? []),
        {
          requestId: String(d.request_id ?? ''),
          tool: String(d.tool ?? ''),
          // What nobody answering leads to; a policy's immediate answer follows at once anyway.
          fallback: typeof d.default === 'string' ? d.default : 'deny',
          turnId: ev.turnId ?? '',
        },
      ];
      return true;
    }
    case 'PERMISSION_RESOLVED': {
      const waiting = facts.waitingRequests ?? [];
      const left = waiting.filter((w) => w.requestId !== ev.data?.request_id);
      if (left.length === waiting.length) return false;
      facts.waitingRequests = left.length > 0 ? left : undefined;
      return true;
    }
    default:
      return false;
  }
}

/**
 * The events that close what a restart cut short, in order: each waiting
 * permission request resolved by its default, then the running turn
 * reported interrupted. Recording them updates the facts (trackLiveFacts).
 */
export function cutShort(facts: SessionFacts): AgentEvent[] {
  const events: AgentEvent[] = (facts.waitingRequests ?? []).map((w) => ({
    type: 'PERMISSION_RESOLVED',
    stream: 'system',
    text: `${w.tool}: ${w.fallback} (daemon_restarted)`,
    ...(w.turnId ? { turnId: w.turnId } : {}),
    data: {
      request_id: w.requestId,
      decision: w.fallback,
      tool: w.tool,
      decided_by: 'daemon_restarted',
    },
  }));
  if (facts.runningTurn !== undefined) {
    events.push({
      type: 'TURN_COMPLETED',
      stream: 'system',
      text: 'interrupted: the daemon restarted',
      done: true,
      ...(facts.runningTurn ? { turnId: facts.runningTurn } : {}),
      data: { interrupted: true, reason: 'daemon_restarted' },
    });
  }
  return events;
}

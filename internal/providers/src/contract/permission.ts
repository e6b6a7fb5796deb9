import type { EventData } from './events.js';

/** How a permission request is answered, in the bridge's words (the proto's PermissionDecision). */
export type PermissionDecision = 'allow_once' | 'allow_session' | 'deny';

export const PERMISSION_DECISIONS: readonly PermissionDecision[] = [
  'allow_once',
  'allow_session',
  'deny',
];

/**
 * An agent's request to use a tool, in the bridge's words, whatever the
 * protocol it came in (claude `can_use_tool`, codex approval requests, ACP
 * `session/request_permission`).
 */
export interface PermissionAsk {
  /** The tool's name as the agent gives it ("Bash", "commandExecution", "execute"). */
  tool: string;
  /** The tool's input in one readable line. */
  summary: string;
  /** The tool's input as the agent sent it. */
  input: unknown;
  /** What the agent offers; a driver maps any of the three onto its protocol. */
  options: readonly PermissionDecision[];
  toolCallId?: string;
  turnId?: string;
  /** Protocol detail worth keeping in the event (codex's approval method, claude's blocked path). */
  details?: EventData;
}

/** The answer to a PermissionAsk, and who gave it. */
export interface PermissionVerdict {
  decision: PermissionDecision;
  /** "caller", "policy", "auto_allow", "session_grant", or why nobody did ("timeout", "interrupt", "turn_end", "stop", "shutdown", "exit"). */
  decidedBy: string;
  /** The caller's reason, when one was given. */
  reason: string;
}

/**
 * Asks whoever decides for the session. The request lives no longer than
 * `signal`, the scope of the turn it belongs to (or of the session between
 * turns): when that ends, or the request's own timeout passes, the request
 * is resolved by the default for why (see EndCause). Never rejects, so a
 * driver can always answer its agent.
 */
export type AskPermission = (ask: PermissionAsk, signal: AbortSignal) => Promise<PermissionVerdict>;

/** The most a summary line keeps of a tool's input. */
const SUMMARY_CHARS = 200;

/**
 * One readable line for a tool's input: the command, path, URL or pattern
 * it names when it has one of those, else its JSON, cut short.
 */
export function summarizeInput(input: unknown): string {
  const line = (() => {
    if (typeof input === 'string') return input;
    if (input && typeof input === 'object' && !Array.isArray(input)) {
      const o = input as Record<string, unknown>;
      for (const key of [
        'command',
        'cmd',
        'file_path',
        'path',
        'filePath',
        'url',
        'pattern',
        'query',
      ]) {
        const v = o[key];
        if (typeof v === 'string' && v !== '') return v;
        if (Array.isArray(v) && v.every((p) => typeof p === 'string')) return v.join(' ');
      }
    }
    return input === undefined ? '' : JSON.stringify(input);
  })();
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 1)}…` : flat;
}

/** What an agent is told when its request is refused: who refused, and why when a reason was given. */
export function denialMessage(verdict: PermissionVerdict): string {
  const by =
    verdict.decidedBy === 'caller'
      ? 'the bridge client'
      : verdict.decidedBy === 'policy'
        ? "the bridge's policy"
        : `the bridge (${verdict.decidedBy.replace('_', ' ')})`;
  return verdict.reason ? `denied by ${by}: ${verdict.reason}` : `denied by ${by}`;
}

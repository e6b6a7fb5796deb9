import {
  awaitsAnswer,
  type BridgeClient,
  type PermissionDecision,
  type PermissionRequest,
  permissionRequest,
  permissionResolution,
} from '@agent-bridge/bridgeclient';
import { CliError, type Command } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';
import { decisionFor } from '../permission-prompt.js';

const ALL_DECISIONS: readonly PermissionDecision[] = ['allow_once', 'allow_session', 'deny'];

/**
 * A decision word ("allow-once", or as the events spell it, "allow_once";
 * the prompt's "once" and "o" too), or a usage error before any call is made.
 */
function decisionOf(word: string): PermissionDecision {
  const decision = decisionFor(word, ALL_DECISIONS);
  if (decision === undefined) {
    throw new CliError(
      EXIT.usage,
      `permissions respond: the decision is one of allow-once, allow-session, deny, not "${word}"`,
    );
  }
  return decision;
}

const permissionsRespondCommand: Command<CtlIo> = {
  name: 'permissions respond',
  summary: "answer an agent's permission request (PERMISSION_REQUESTED); the first answer wins",
  usage:
    'bridgectl permissions respond SESSION_ID REQUEST_ID allow-once|allow-session|deny [--reason TEXT]',
  options: {
    reason: {
      type: 'string',
      value: 'TEXT',
      description:
        'why, for the record (PERMISSION_RESOLVED, the audit log); a denial tells the agent',
    },
  },
  notes: [
    'REQUEST_ID is data.request_id of the PERMISSION_REQUESTED event (`bridgectl permissions list`).',
    'allow-session also allows the later requests of the same tool in this session.',
    'The output is the seq of the PERMISSION_RESOLVED event. A request already resolved (answered,',
    'timed out, the turn ended) fails with exit 1 and says how; an unknown one with exit 6.',
  ],
  positionals: { min: 3, max: 3 },
  async run(ctx) {
    const [sessionId, requestId, word] = ctx.positionals as [string, string, string];
    const decision = decisionOf(word);
    const reason = ctx.values.reason as string | undefined;
    const seq = await withClient(ctx, (c) =>
      c.respondPermission(sessionId, requestId, decision, reason === undefined ? {} : { reason }),
    );
    return {
      text: [`resolved: seq ${seq}`],
      json: { sessionId, requestId, decision, seq },
    };
  },
};

/**
 * The session's requests that still wait for an answer: each
 * PERMISSION_REQUESTED (waiting, mode ask) with no PERMISSION_RESOLVED yet,
 * among the events the daemon holds now.
 */
async function waitingRequests(
  client: BridgeClient,
  sessionId: string,
): Promise<PermissionRequest[]> {
  const { lastSeq } = await client.getSession(sessionId);
  const waiting = new Map<string, PermissionRequest>();
  if (lastSeq === 0) return [];
  const stream = client.events(sessionId, { afterSeq: 0 });
  for await (const e of stream) {
    const request = permissionRequest(e);
    if (request && awaitsAnswer(request)) waiting.set(request.requestId, request);
    const resolution = permissionResolution(e);
    if (resolution) waiting.delete(resolution.requestId);
    if (e.seq >= lastSeq) stream.close();
  }
  return [...waiting.values()];
}

const permissionsListCommand: Command<CtlIo> = {
  name: 'permissions list',
  summary: "a session's permission requests that wait for an answer",
  usage: 'bridgectl permissions list SESSION_ID',
  options: {},
  notes: [
    'One line per request: its id, the tool and its input, the answers offered, and when its',
    'default applies. Read from the events the daemon still holds.',
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const sessionId = ctx.positionals[0] as string;
    const waiting = await withClient(ctx, (c) => waitingRequests(c, sessionId));
    return {
      text: waiting.length
        ? waiting.map(
            (r) =>
              `${r.requestId}  ${r.tool}  ${r.summary}  [${r.options.join(', ')}]  ${r.fallback ?? 'deny'} at ${r.expiresAt?.toISOString() ?? '?'}`,
          )
        : ['no permission request waits for an answer'],
      json: waiting,
    };
  },
};

/** `permissions list` and `permissions respond`, in the order help lists them. */
export const permissionsCommands: readonly Command<CtlIo>[] = [
  permissionsListCommand,
  permissionsRespondCommand,
];

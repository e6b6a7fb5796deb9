import {
  BridgeError,
  type PermissionDecision,
  type PermissionRequest,
  type PermissionResolution,
} from '@agent-bridge/bridgeclient';
import { scope } from '@agent-bridge/scope';
import type { CtlIo } from './ctl-io.js';
import { DECISION_WORDS } from './permission-lines.js';

/** What a person types for each decision: its key, or the word the key stands for. */
const ANSWERS: Record<PermissionDecision, { key: string; word: string }> = {
  allow_once: { key: 'o', word: 'once' },
  allow_session: { key: 's', word: 'session' },
  deny: { key: 'd', word: 'deny' },
};

/** "[o]nce / [s]ession / [d]eny", only the decisions the agent offers. */
const choices = (offered: readonly PermissionDecision[]) =>
  offered.map((d) => `[${ANSWERS[d].key}]${ANSWERS[d].word.slice(1)}`).join(' / ');

/** The question shown for a request. */
const questionFor = (r: PermissionRequest): string =>
  `  allow ${r.tool || 'the tool'}? ${choices(r.options)} > `;

/** The offered decision an answer names ("o", "once", "allow_once", "allow-once"), if any. */
export function decisionFor(
  answer: string,
  offered: readonly PermissionDecision[],
): PermissionDecision | undefined {
  const said = answer.trim().toLowerCase().replace(/-/g, '_');
  return offered.find((d) => said === d || said === ANSWERS[d].key || said === ANSWERS[d].word);
}

export interface PermissionPromptDeps {
  readAnswer: NonNullable<CtlIo['readAnswer']>;
  /** Sends the answer (RespondPermission). */
  respond: (decision: PermissionDecision) => Promise<unknown>;
  /**
   * Watches the session for this request's resolution, by anyone: calls
   * `caughtUp` once it has read what the daemon held when it began, and
   * resolves with the resolution when it comes (undefined when the watch
   * ends without one or `signal` aborts).
   */
  watchResolution: (
    caughtUp: () => void,
    signal: AbortSignal,
  ) => Promise<PermissionResolution | undefined>;
  /** Where the prompt's own lines go (stdout, beside the rendered events). */
  write: (text: string) => void;
  /** Ctrl-C: stops asking. */
  signal?: AbortSignal;
}

/**
 * How a prompt ended: the person's answer was taken; the request was
 * resolved otherwise (before asking, or while asking: another client, its
 * timeout, the turn's end); the answer came too late (FAILED_PRECONDITION);
 * the daemon failed the call; Ctrl-C.
 */
export type PromptOutcome = 'answered' | 'resolved' | 'too-late' | 'failed' | 'interrupted';

/**
 * Asks the person at the terminal to answer a permission request that
 * waits, and sends their answer. The session's events are watched
 * meanwhile, so a request already resolved (an old one in the history) is
 * not asked about, and a question someone else answered first is withdrawn
 * instead of waiting for a reply that no longer matters.
 */
export async function promptPermission(
  request: PermissionRequest,
  deps: PermissionPromptDeps,
): Promise<PromptOutcome> {
  // The prompt's scope: answered, resolved elsewhere, or the command's end.
  const done = scope(deps.signal ?? []);
  let caughtUp: () => void = () => undefined;
  const watchCaughtUp = new Promise<false>((resolve) => {
    caughtUp = () => resolve(false);
  });
  // A watch that fails only costs the early notice: the answer still works.
  const resolved = deps.watchResolution(caughtUp, done.signal).catch(() => undefined);
  void resolved.then((r) => r && done.end());
  try {
    const resolvedBeforeAsking = await Promise.race([
      watchCaughtUp,
      resolved.then((r) => r !== undefined),
    ]);
    if (resolvedBeforeAsking) return 'resolved';
    while (!done.signal.aborted) {
      const answer = await deps.readAnswer(questionFor(request), done.signal);
      if (answer === undefined) break;
      const decision = decisionFor(answer, request.options);
      if (decision === undefined) {
        deps.write(`  answer ${choices(request.options)}\n`);
        continue;
      }
      done.end();
      return await send(decision, deps);
    }
    if (deps.signal?.aborted) return 'interrupted';
    const by = await resolved;
    deps.write(
      `\n! no longer waiting for your answer${by ? `: ${DECISION_WORDS[by.decision]} by ${by.decidedBy}` : ''}\n`,
    );
    return 'resolved';
  } finally {
    done.end();
    await resolved;
  }
}

async function send(
  decision: PermissionDecision,
  deps: PermissionPromptDeps,
): Promise<PromptOutcome> {
  try {
    await deps.respond(decision);
    return 'answered';
  } catch (error) {
    if (!(error instanceof BridgeError)) throw error;
    // Another client, the timeout or the turn's end came first: the daemon says which.
    if (error.code === 'FAILED_PRECONDITION') {
      deps.write(`! too late: ${error.details || error.message}\n`);
      return 'too-late';
    }
    // Following goes on: the request resolves by its default if nobody else answers.
    deps.write(`! could not answer: ${error.message.split('\n')[0]} (${error.code})\n`);
    return 'failed';
  }
}

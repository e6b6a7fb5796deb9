import type { AgentEvent, ExitInfo } from '@agent-bridge/providers';
import type { StartRequest } from '../types.js';

/** Why a start-up failed: its own failure or timeout, or a resume after a daemon restart that failed. */
export type StartupFailure = 'startup_failed' | 'startup_timeout' | 'daemon_restarted';

/** Why a session was stopped rather than ended by its agent. */
/** Why a session was stopped: asked to, idle, the daemon going, or its events no longer kept. */
export type StopReason = 'stop_requested' | 'idle_timeout' | 'shutdown' | 'store_failed';

/** Why a start-up was abandoned: the session was stopped before its agent came up. */
export class StoppedDuringStartup extends Error {
  constructor(readonly reason: StopReason) {
    super(`the session was stopped during start-up (${reason})`);
    this.name = 'StoppedDuringStartup';
  }
}

/** The terminal event an agent's end makes: stopped, or failed with why. */
export type AgentEnd =
  | { failed: false; text: string; data: Record<string, unknown> }
  | { failed: true; error: string; data: Record<string, unknown> };

/**
 * How a session whose agent ended reports it: SESSION_STOPPED when it was
 * stopped or exited 0, else SESSION_FAILED with the end of its stored
 * (redacted) stderr, `stderr_tail`; SESSION_FAILED `store_failed` when the
 * session store could no longer keep its events.
 */
export function agentEnd(
  reason: StopReason | undefined,
  exit: ExitInfo,
  stderrTail: string,
  storeError?: Error,
): AgentEnd {
  if (storeError) {
    return {
      failed: true,
      error: `the session store cannot record events: ${storeError.message}`,
      data: { reason: 'store_failed' },
    };
  }
  const data: Record<string, unknown> = {
    reason: reason ?? (exit.exitCode === 0 ? 'exited' : 'crashed'),
  };
  if (exit.exitCode !== null) data.exit_code = exit.exitCode;
  if (exit.signal) data.signal = exit.signal;
  if (reason || exit.exitCode === 0) return { failed: false, text: stopText(reason, exit), data };
  return { failed: true, error: exitText(exit), data: { ...data, stderr_tail: stderrTail } };
}

function stopText(reason: StopReason | undefined, exit: ExitInfo): string {
  switch (reason) {
    case 'stop_requested':
      return 'session stopped on request';
    case 'idle_timeout':
      return 'session stopped: idle timeout (no input, output or subscriber)';
    case 'shutdown':
      return 'session stopped: the daemon is shutting down';
    default:
      return `agent exited with code ${exit.exitCode}`;
  }
}

function exitText(exit: ExitInfo): string {
  return exit.signal ? `agent killed by ${exit.signal}` : `agent exited with code ${exit.exitCode}`;
}

/**
 * How a failed start-up reports it. When the agent exited (`stderrTail`
 * given), the error quotes the end of its stderr as stored (redacted),
 * which usually says why, and `stderr_tail` carries more of it.
 */
export function startupEnd(
  error: string,
  reason: StartupFailure,
  stderrTail: string | undefined,
): { error: string; data: Record<string, unknown> } {
  if (stderrTail === undefined) return { error, data: { reason } };
  const quoted = lastLines(stderrTail, 3);
  return {
    error: quoted ? `${error}: ${quoted}` : error,
    data: { reason, stderr_tail: stderrTail },
  };
}

/** The last `n` lines of a stderr tail on one line, to quote in an error. */
function lastLines(tail: string, n: number): string {
  return tail.trim().split('\n').slice(-n).join(' | ');
}

/** SESSION_STARTED: the agent's process exists. */
export function startedEvent(
  { provider, name = '', role = '' }: Pick<StartRequest, 'provider' | 'name' | 'role'>,
  pid: number,
  repoPath: string,
): AgentEvent {
  const as = [name && `as ${name}`, role && `(${role})`].filter(Boolean).join(' ');
  return {
    type: 'SESSION_STARTED',
    stream: 'system',
    text: `${provider} started${as ? ` ${as}` : ''} (pid ${pid}) in ${repoPath}`,
    data: {
      pid,
      repo_path: repoPath,
      ...(name ? { name } : {}),
      ...(role ? { role } : {}),
    },
  };
}

import type { ExitInfo } from '@agent-bridge/providers';

/** Why a session was stopped rather than ended by its agent. */
export type StopReason = 'stop_requested' | 'idle_timeout' | 'shutdown';

/** Why a start-up was abandoned: the session was stopped before its agent came up. */
export class StoppedDuringStartup extends Error {
  constructor(readonly reason: StopReason) {
    super(`the session was stopped during start-up (${reason})`);
    this.name = 'StoppedDuringStartup';
  }
}

/** The text of SESSION_STOPPED: why the session ended without a failure. */
export function stopText(reason: StopReason | undefined, exit: ExitInfo): string {
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

/** The error of SESSION_FAILED when the agent ended on its own. */
export function exitText(exit: ExitInfo): string {
  return exit.signal ? `agent killed by ${exit.signal}` : `agent exited with code ${exit.exitCode}`;
}

/** The last `n` lines of a stderr tail on one line, to quote in an error. */
export function lastLines(tail: string, n: number): string {
  return tail.trim().split('\n').slice(-n).join(' | ');
}

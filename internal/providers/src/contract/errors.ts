// What a start, an input or an agent's end can fail with: the errors the core
// tells apart (a spawn refused, a start-up that never finished, input that can
// no longer be delivered) and how a process ended. Each keeps what caused it
// (`cause`) for the daemon's log; callers are shown the message only.

export interface ExitInfo {
  /** Exit code when the process exited on its own; null when a signal ended it. */
  exitCode: number | null;
  /** Signal name when a signal ended it, e.g. "SIGKILL". */
  signal: string | null;
}

/** The agent closed its stdin (or exited): input cannot be delivered. */
export class InputClosedError extends Error {
  constructor(options?: ErrorOptions) {
    super('the agent closed its input', options);
    this.name = 'InputClosedError';
  }
}

/** The binary could not be spawned (missing, not executable, bad cwd). */
export class SpawnError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SpawnError';
  }
}

/**
 * The agent did not come up: it exited (`exit` says how; its stderr went to
 * the session as events), or start-up was abandoned. The session fails with
 * this message.
 */
export class StartupError extends Error {
  readonly exit: ExitInfo | undefined;

  constructor(message: string, options?: ErrorOptions & { exit?: ExitInfo }) {
    super(message, options);
    this.name = 'StartupError';
    this.exit = options?.exit;
  }
}

/** Documented exit statuses (README.md); scripts may rely on them. */
export const EXIT = {
  ok: 0,
  /** The daemon refused or failed the call (a bad request, a session not running, a limit). */
  failed: 1,
  /** Bad command line, or connection settings missing or invalid (flags, env, profile). */
  usage: 2,
  /** A file named by the settings (certificate, key, CA, JWT key, profile file) is unreadable or not what it should be. */
  file: 3,
  /** The daemon cannot be reached, or did not answer in time. */
  unavailable: 4,
  /** The daemon refused the caller: its token or certificate, or a permission (a path outside allowed_paths). */
  refused: 5,
  /** No such session in this project (or no such permission request in it). */
  notFound: 6,
  /** `run`: the task was SKIPPED: the daemon cannot run it (provider missing, unavailable or unauthenticated, a limit); nothing ran. */
  taskSkipped: 7,
  /** `run`: the task HALTED: the agent stopped on an error, or the task ran out of time. */
  taskHalted: 8,
  /** Stopped by Ctrl-C (SIGINT); for `run`, the task was ABORTED. */
  interrupted: 130,
  /** A bug: an unexpected error. */
  internal: 70,
} as const;

export const EXIT_LINES = [
  `  ${EXIT.ok}    success`,
  `  ${EXIT.failed}    the daemon refused or failed the call (bad request, session not running, a limit)`,
  `  ${EXIT.usage}    usage: unknown command or option, bad value, connection settings missing`,
  `  ${EXIT.file}    a file of the settings (CA, certificate, key, JWT key, profiles) unreadable or invalid`,
  `  ${EXIT.unavailable}    the daemon is unreachable or did not answer in time`,
  `  ${EXIT.refused}    the daemon refused the caller: credentials, or a permission (path outside allowed_paths)`,
  `  ${EXIT.notFound}    no such session in this project, or permission request in it`,
  `  ${EXIT.taskSkipped}    run: the task was SKIPPED (the daemon cannot run it; nothing ran)`,
  `  ${EXIT.taskHalted}    run: the task HALTED (the agent stopped on an error, or --timeout passed)`,
  `  ${EXIT.internal}   internal error`,
  `  ${EXIT.interrupted}  interrupted (Ctrl-C); for run, the task was ABORTED`,
];

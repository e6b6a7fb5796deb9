/** Documented exit statuses (README.md); scripts may rely on them. */
export const EXIT = {
  ok: 0,
  /** The daemon refused or failed the call (a bad request, a session not running, a limit). */
  failed: 1,
  /** Bad command line, or connection settings missing or invalid (flags, env, profile, an unknown profile key). */
  usage: 2,
  /** A file named by the settings (certificate, key, CA, JWT key, profile file) is unreadable or not what it should be, or a private key others can read. */
  file: 3,
  /** The daemon cannot be reached, or did not answer in time. */
  unavailable: 4,
  /**
   * Refused: the daemon refused the caller (its certificate, during TLS, or its token) or a
   * permission (a path outside allowed_paths); or TLS refused the daemon (its certificate is not
   * from the --ca bundle, or does not carry the --server-name).
   */
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

/** The table of `bridgectl --help`; README.md's "Exit status" says the same at more length. */
export const EXIT_LINES = [
  `  ${EXIT.ok}    success`,
  `  ${EXIT.failed}    the daemon refused or failed the call (bad request, session not running, a limit,`,
  '       a permission request already resolved), a session failed to start, health not serving',
  `  ${EXIT.usage}    usage: unknown command or option, bad value, connection settings missing,`,
  '       unknown profile or profile key',
  `  ${EXIT.file}    a file of the settings (CA, certificate, key, JWT key, profiles) unreadable or invalid,`,
  '       or a private key others can read',
  `  ${EXIT.unavailable}    the daemon is unreachable or did not answer in time`,
  `  ${EXIT.refused}    refused: the daemon refused this client's certificate (TLS) or token, or a permission`,
  "       (a path outside allowed_paths); or the daemon's certificate failed --ca or --server-name",
  `  ${EXIT.notFound}    no such session in this project, or permission request in it`,
  `  ${EXIT.taskSkipped}    run: the task was SKIPPED (the daemon cannot run it; nothing ran)`,
  `  ${EXIT.taskHalted}    run: the task HALTED (the agent stopped on an error, or --timeout passed)`,
  `  ${EXIT.internal}   internal error`,
  `  ${EXIT.interrupted}  interrupted (Ctrl-C); for run, the task was ABORTED`,
];

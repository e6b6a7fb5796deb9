import type { CliIo } from '@agent-bridge/cli';

/** What bridgectl needs of its process beyond a plain CLI. */
export interface CtlIo extends CliIo {
  /** Colour and the running-text layout are for people at a terminal only. */
  stdoutIsTty: boolean;
  /** Spinners go to stderr, and only when it is a terminal. */
  stderrIsTty: boolean;
  /** Aborted on Ctrl-C, or when the output is closed (its reason then isOutputClosed): a following stream ends quietly. */
  signal?: AbortSignal;
  /**
   * Shows `question` to the person at the terminal and resolves with the
   * line they type, or undefined once `signal` aborts. Present only when
   * stdin and stdout are terminals: without it bridgectl never prompts, so
   * a script or a pipe is never left waiting for an answer.
   */
  readAnswer?: (question: string, signal: AbortSignal) => Promise<string | undefined>;
}

/**
 * The running process as bridgectl's io: its streams, environment and
 * clock. Under `npm run`, INIT_CWD is where the user typed the command.
 */
export function processIo(): CtlIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.env.INIT_CWD ?? process.cwd(),
    now: () => new Date(),
    stdoutIsTty: process.stdout.isTTY === true,
    stderrIsTty: process.stderr.isTTY === true,
  };
}

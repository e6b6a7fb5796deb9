import type { CliIo } from '@agent-bridge/cli';

/** What bridgectl needs of its process beyond a plain CLI. */
export interface CtlIo extends CliIo {
  /** Colour and the running-text layout are for people at a terminal only. */
  stdoutIsTty: boolean;
  /** Spinners go to stderr, and only when it is a terminal. */
  stderrIsTty: boolean;
  /** Aborted on Ctrl-C: a following stream ends quietly. */
  signal?: AbortSignal;
}

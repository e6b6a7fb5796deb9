/** What a CLI touches outside its arguments, passed in so tests can run it in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  /** Directory relative paths resolve against. */
  cwd: string;
  /** Asks for a secret without echo; undefined when there is no terminal. */
  promptSecret?: (question: string) => Promise<string>;
  now: () => Date;
}

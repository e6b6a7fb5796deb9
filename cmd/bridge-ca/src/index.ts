// The bridge-ca CLI as a library, so tests and other tools can run it in-process.

export { runCli } from './cli.js';
export { CliError } from './cli-error.js';
export type { CliIo } from './cli-io.js';
export { EXIT, type ExitCode } from './exit-codes.js';

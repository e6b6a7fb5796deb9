// The bridge-ca CLI as a library, so tests and other tools can run it in-process.

export { CliError, type CliIo } from '@agent-bridge/cli';
export { runCli } from './cli.js';
export { EXIT, type ExitCode } from './exit-codes.js';

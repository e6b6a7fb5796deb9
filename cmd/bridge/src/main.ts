#!/usr/bin/env node
import { outputClosed } from '@agent-bridge/cli';
import { HELP, parseCommandLine } from './private/command-line.js';
import { VERSION } from './version.js';

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    process.stderr.write(`bridge: ${(err as Error).message.split('\n')[0]} (see bridge --help)\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = positionals[0] ?? 'run';
  if (command === 'mcp') {
    if (!values.socket || !values['capability-file']) {
      process.stderr.write(
        'bridge mcp: --socket <path> and --capability-file <file> are required (see bridge --help)\n',
      );
      return 2;
    }
    // An agent's tool server, one per session, which its agent waits for:
    // nothing of the daemon is loaded (the modules below take most of a
    // second more to load on a busy host).
    const { runMcpServer } = await import('./mcp-server.js');
    return runMcpServer(values.socket, values['capability-file']);
  }
  const { runDaemonCommand } = await import('./private/daemon-command.js');
  return runDaemonCommand(command, values);
}

// A reader that goes away (`bridge --help | head -1`) is no failure: what is
// left to write is dropped, instead of an EPIPE stack trace and exit 1.
outputClosed();
main(process.argv.slice(2)).then(
  (code) => {
    // The daemon has stopped (or never started): exit even if a library
    // still holds a handle, after giving the logger a moment to flush.
    setTimeout(() => process.exit(code), 50);
  },
  (err) => {
    process.stderr.write(`bridge: ${(err as Error).message}\n`);
    process.exit(1);
  },
);

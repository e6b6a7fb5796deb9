#!/usr/bin/env node
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { outputClosed } from '@agent-bridge/cli';
import {
  LiveProcessGroups,
  type ProviderHost,
  SupervisedProcess,
  trackingSpawner,
} from '@agent-bridge/providers/host';
import { scope } from '@agent-bridge/scope';
import { defaultAllowedPaths, ensureDevSetup } from './dev-setup.js';
import { runMcpServer } from './mcp-server.js';
import { checkConfig } from './private/check-config.js';
import { HELP, parseCommandLine } from './private/command-line.js';
import { invokedFrom } from './private/invoked-from.js';
import { run } from './private/run-daemon.js';
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
    // An agent's tool server: nothing of the daemon is started.
    return runMcpServer(values.socket, values['capability-file']);
  }
  // Every agent process group, from spawn to exit: what the orphan guard watches.
  const groups = new LiveProcessGroups();
  // Ends the providers' background health probes when the daemon stops.
  const lifetime = scope();
  // The only place providers learn about the process they run in.
  const host: ProviderHost = {
    parentEnv: process.env,
    tempRoot: tmpdir(),
    spawn: trackingSpawner((opts) => SupervisedProcess.spawn(opts), groups),
    lifetime: lifetime.signal,
  };
  switch (command) {
    case 'run':
    case 'check-config': {
      if (!values.config) {
        process.stderr.write(
          `bridge ${command}: --config <file> is required (see bridge --help)\n`,
        );
        return 2;
      }
      const file = resolve(invokedFrom, values.config);
      return command === 'run'
        ? run(file, host, groups).finally(() => lifetime.end())
        : checkConfig(file, host);
    }
    case 'dev': {
      const root = resolve(new URL('../../..', import.meta.url).pathname);
      const dirOption = values.dir ?? process.env.BRIDGE_DEV_DIR;
      const devDir = dirOption ? resolve(invokedFrom, dirOption) : resolve(root, 'certs/dev');
      const listen = values.listen ?? (process.env.BRIDGE_DEV_LISTEN || '127.0.0.1:9445');
      const setup = await ensureDevSetup(devDir, {
        listen,
        allowedPaths: defaultAllowedPaths(invokedFrom),
        pathEnv: host.parentEnv.PATH ?? '',
      });
      if (setup.created)
        process.stderr.write(`bridge dev: created a development PKI in ${setup.files.dir}\n`);
      return run(setup.files.config, host, groups, { files: setup.files, listen }).finally(() =>
        lifetime.end(),
      );
    }
    default:
      process.stderr.write(`bridge: unknown command "${command}" (see bridge --help)\n`);
      return 2;
  }
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

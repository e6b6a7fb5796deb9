import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import {
  LiveProcessGroups,
  type ProviderHost,
  SupervisedProcess,
  trackingSpawner,
} from '@agent-bridge/providers/host';
import { scope } from '@agent-bridge/scope';
import { defaultAllowedPaths, ensureDevSetup } from '../dev-setup.js';
import { checkConfig } from './check-config.js';
import type { parseCommandLine } from './command-line.js';
import { DEFAULT_DEV_DIR } from './dev-dir.js';
import { invokedFrom } from './invoked-from.js';
import { run } from './run-daemon.js';

type Values = ReturnType<typeof parseCommandLine>['values'];

/** `bridge run`, `bridge check-config` and `bridge dev`: the commands that load the daemon. */
export async function runDaemonCommand(command: string, values: Values): Promise<number> {
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
      const dirOption = values.dir ?? process.env.BRIDGE_DEV_DIR;
      const devDir = dirOption ? resolve(invokedFrom, dirOption) : DEFAULT_DEV_DIR;
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

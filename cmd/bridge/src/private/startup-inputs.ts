import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BridgeConfig } from '@agent-bridge/config';
import type { ProviderHost } from '@agent-bridge/providers/host';
import { defaultStateDir } from '../orphan-guard.js';
import type { DevRun } from './dev-run.js';

/** Where the daemon keeps its state: `sessions.state_dir`, else the dev directory's or the default one. */
export function stateDirOf(config: BridgeConfig, dev: DevRun | undefined): string {
  return (
    config.sessions.stateDir ||
    (dev ? join(dev.files.dir, 'state') : defaultStateDir(process.env, tmpdir()))
  );
}

/** The start-up check's options, as `run` and `check-config` both give them. */
export function startupCheckOptions(config: BridgeConfig, stateDir: string, host: ProviderHost) {
  return {
    stateDir,
    stateDirKey: config.sessions.stateDir
      ? 'sessions.state_dir'
      : 'sessions.state_dir (unset, so the default)',
    pathEnv: host.parentEnv.PATH ?? '',
  };
}

/** Problem and warning lines, indented under the line that introduces them. */
export const lines = (items: readonly string[]) => items.map((l) => `  ${l}\n`).join('');

import { homedir } from 'node:os';
import { join } from 'node:path';
import { memoryStore, type SessionStore } from '@agent-bridge/bridge';
import type { BridgeConfig } from '@agent-bridge/config';
import { LmdbStore, StoreDamagedError, StoreLockedError } from '@agent-bridge/store';
import type { DevRun } from './dev-run.js';

/** The session store the daemon runs on, and how to let go of it after the daemon stopped. */
export interface OpenedStore {
  store: SessionStore;
  /** The embedded store itself (what a fleet replicates); undefined for the memory store. */
  embedded: LmdbStore | undefined;
  /** Where it is kept; undefined for the memory store. */
  path: string | undefined;
  close(): Promise<void>;
}

/** Why the store could not be opened, with the exit code that fits it. */
export class StoreOpenError extends Error {
  constructor(
    message: string,
    /** 2 when a restart cannot help (the unit does not restart on 2), else 1. */
    readonly exitCode: 1 | 2,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

/**
 * The embedded store's default directory: the service's state directory
 * (systemd's StateDirectory=), else the user's XDG state directory. Never
 * the runtime directory, which a reboot empties.
 */
export function defaultStorePath(env: NodeJS.ProcessEnv, home: string): string {
  const systemd = env.STATE_DIRECTORY?.split(':')[0];
  if (systemd) return join(systemd, 'store');
  const state = env.XDG_STATE_HOME || join(home, '.local', 'state');
  return join(state, 'agent-bridge', 'store');
}

/** `storage.path`, else `bridge dev`'s directory, else the default. */
export function storePathOf(config: BridgeConfig, dev: DevRun | undefined): string {
  return (
    config.storage.path ||
    (dev ? join(dev.files.dir, 'state', 'store') : defaultStorePath(process.env, homedir()))
  );
}

/**
 * Where sessions' isolated homes (`isolate_home`) go on a durable store:
 * beside the events, in the store's directory, so that the agents'
 * conversations survive a reboot as the sessions do. Undefined for the
 * memory store (a temporary directory then).
 */
export function homesRootOf(config: BridgeConfig, dev: DevRun | undefined): string | undefined {
  return config.storage.backend === 'memory' ? undefined : join(storePathOf(config, dev), 'homes');
}

/** Opens the store `config.storage` names; throws StoreOpenError with what to do when it cannot. */
export async function openStore(
  config: BridgeConfig,
  dev: DevRun | undefined,
): Promise<OpenedStore> {
  if (config.storage.backend === 'memory') {
    return {
      store: memoryStore(),
      embedded: undefined,
      path: undefined,
      close: () => Promise.resolve(),
    };
  }
  const path = storePathOf(config, dev);
  try {
    const store = await LmdbStore.open({
      path,
      sync: config.storage.sync,
      maxBytes: config.storage.maxSizeBytes,
    });
    return { store, embedded: store, path, close: () => store.close() };
  } catch (err) {
    const known = err instanceof StoreLockedError || err instanceof StoreDamagedError;
    throw new StoreOpenError(
      known
        ? (err as Error).message
        : `cannot open the session store ${path} (storage.path): ${(err as Error).message}`,
      err instanceof StoreDamagedError ? 2 : 1,
      { cause: err },
    );
  }
}

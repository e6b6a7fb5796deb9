import type { CursorStore } from './cursor-store.js';
import type { BridgeError } from './errors.js';
import type { FleetDiscoveryOptions } from './fleet-discovery.js';
import type { BridgeClientOptions } from './options.js';
import type { Health, ProviderInfo, SessionInfo } from './types.js';

/** One daemon of the fleet: a name of your choosing and how to reach it. */
export interface FleetDaemon extends Omit<BridgeClientOptions, 'cursorStore'> {
  name: string;
}

export interface BridgeFleetOptions {
  /** The daemons, listed; or, with `discovery`, the ones always there beside those found (may be empty). */
  daemons?: FleetDaemon[];
  /** Daemons found in a directory (a fleet on NATS: `natsDiscovery`), joining and leaving as it says. */
  discovery?: FleetDiscoveryOptions;
  /** How long a daemon's Health and ListProviders answers serve placement. Default 2 s. */
  probeTtlMs?: number;
  /** A daemon that has not answered its probe by then is skipped for this placement. Default 3 s. */
  probeTimeoutMs?: number;
  /** Shared by the daemons' event streams. Default: in memory. */
  cursorStore?: CursorStore;
}

/** What placement knows of a daemon. */
export type DaemonStatus =
  | { daemon: string; reachable: true; health: Health; providers: ProviderInfo[] }
  | { daemon: string; reachable: false; error: BridgeError };

export type FleetSession = SessionInfo & { daemon: string };

import type { BridgeClientOptions } from './options.js';

/** A daemon as a fleet's directory announces it. */
export interface DiscoveredDaemon {
  /** Its id in the fleet: the fleet's name for it. */
  id: string;
  /** Where clients reach it, "host:port". */
  address: string;
  /** Sessions it runs now, and the most it takes (0: no bound). */
  sessions: number;
  maxSessions: number;
  /** The providers it offers. */
  providers: string[];
  version: string;
}

/**
 * Where a fleet finds its daemons instead of a static list: a directory
 * that daemons announce themselves in and fall out of when they go
 * (`natsDiscovery`, from `@agent-bridge/bridgeclient/nats`, reads the one
 * daemons in a NATS fleet keep). Placement reads the directory rather than
 * probing every daemon; routing by session asks `ownerOf` first.
 */
export interface FleetDiscovery {
  /** The daemons in the directory now. */
  daemons(signal?: AbortSignal): Promise<DiscoveredDaemon[]>;
  /** The id of the daemon that runs `sessionId`, when the directory knows. */
  ownerOf?(sessionId: string, signal?: AbortSignal): Promise<string | undefined>;
  close?(): Promise<void> | void;
}

/** A fleet found through a directory: what it reads, and how each daemon it finds is reached. */
export interface FleetDiscoveryOptions {
  source: FleetDiscovery;
  /** Every discovered daemon's client takes these, with its announced address as `target`. */
  client: Omit<BridgeClientOptions, 'target' | 'cursorStore'>;
  /** How long the directory's answer serves before it is read again. Default 1 s. */
  refreshMs?: number;
}

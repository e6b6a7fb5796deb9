import { BridgeError } from '../errors.js';
import type { DaemonStatus } from '../fleet-types.js';
import type { CallOptions } from '../options.js';
import type { Health, ProviderInfo } from '../types.js';

/** The calls of a probe. */
interface ProbedClient {
  health(opts: CallOptions): Promise<Health>;
  listProviders(opts: CallOptions): Promise<ProviderInfo[]>;
}

/**
 * Each daemon's Health and ListProviders answers, as placement sees them:
 * asked together, each within the probe timeout, and kept for the probe
 * TTL so that a burst of placements does not ask every daemon each time.
 */
export class DaemonProbes {
  private readonly probes = new Map<string, { at: number; status: Promise<DaemonStatus> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly timeoutMs: number,
  ) {}

  status(name: string, client: ProbedClient): Promise<DaemonStatus> {
    const cached = this.probes.get(name);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.status;
    const opts = { timeoutMs: this.timeoutMs };
    const status = Promise.all([client.health(opts), client.listProviders(opts)]).then(
      ([health, providers]): DaemonStatus => ({ daemon: name, reachable: true, health, providers }),
      (err: unknown): DaemonStatus => {
        if (!(err instanceof BridgeError)) throw err;
        return { daemon: name, reachable: false, error: err };
      },
    );
    this.probes.set(name, { at: Date.now(), status });
    return status;
  }

  /** Drops a daemon's probe: its room changed (it took or refused a session). */
  forget(name: string): void {
    this.probes.delete(name);
  }
}

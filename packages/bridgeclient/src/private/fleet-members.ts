import { BridgeClient } from '../client.js';
import type { CursorStore } from '../cursor-store.js';
import type { DiscoveredDaemon, FleetDiscoveryOptions } from '../fleet-discovery.js';
import type { BridgeFleetOptions } from '../fleet-types.js';

/**
 * The daemons of a fleet and a client for each: the listed ones, and
 * those a directory announces, brought up to date when asked (at most once
 * per `refreshMs`): a daemon that appears gets a client, one that left has
 * its client closed and is no longer used.
 */
export class FleetMembers {
  readonly clients = new Map<string, BridgeClient>();
  private readonly listed = new Set<string>();
  private readonly discovery: FleetDiscoveryOptions | undefined;
  private readonly cursorStore: CursorStore | undefined;
  private seen: { at: number; daemons: Promise<DiscoveredDaemon[]> } | undefined;

  constructor(opts: BridgeFleetOptions) {
    if (!opts.daemons?.length && !opts.discovery) {
      throw new TypeError('a fleet needs at least one daemon, or a discovery to find them');
    }
    this.discovery = opts.discovery;
    this.cursorStore = opts.cursorStore;
    for (const d of opts.daemons ?? []) {
      if (!d.name || this.clients.has(d.name)) {
        throw new TypeError(`daemon names must be unique and non-empty: ${JSON.stringify(d.name)}`);
      }
      const { name, ...options } = d;
      this.clients.set(name, this.clientOf(options));
      this.listed.add(name);
    }
  }

  get discovered(): boolean {
    return this.discovery !== undefined;
  }

  /** The directory's daemons now (none without discovery), with the clients made to match. */
  async refresh(signal?: AbortSignal): Promise<DiscoveredDaemon[]> {
    const d = this.discovery;
    if (!d) return [];
    if (!this.seen || Date.now() - this.seen.at >= (d.refreshMs ?? 1000)) {
      const daemons = d.source.daemons(signal);
      this.seen = { at: Date.now(), daemons };
      daemons.catch(() => {
        if (this.seen?.daemons === daemons) this.seen = undefined;
      });
    }
    const daemons = await this.seen.daemons;
    const live = new Set(daemons.map((x) => x.id));
    for (const [name, client] of this.clients) {
      if (!this.listed.has(name) && !live.has(name)) {
        client.close();
        this.clients.delete(name);
      }
    }
    for (const x of daemons) {
      if (!this.clients.has(x.id)) {
        this.clients.set(x.id, this.clientOf({ ...d.client, target: x.address }));
      }
    }
    return daemons;
  }

  /** The daemon that runs `sessionId`, as the directory says; undefined when it does not know. */
  async ownerOf(sessionId: string, signal?: AbortSignal): Promise<string | undefined> {
    const owner = await this.discovery?.source.ownerOf?.(sessionId, signal);
    if (owner === undefined) return undefined;
    await this.refresh(signal);
    return this.clients.has(owner) ? owner : undefined;
  }

  client(name: string): BridgeClient {
    const c = this.clients.get(name);
    if (!c) throw new TypeError(`no daemon named ${JSON.stringify(name)} in the fleet`);
    return c;
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) c.close();
    await this.discovery?.source.close?.();
  }

  private clientOf(options: ConstructorParameters<typeof BridgeClient>[0]): BridgeClient {
    return new BridgeClient({
      ...options,
      ...(this.cursorStore ? { cursorStore: this.cursorStore } : {}),
    });
  }
}

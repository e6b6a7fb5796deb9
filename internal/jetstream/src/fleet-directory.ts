import { setTimeout as delay } from 'node:timers/promises';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { bucketKeys } from './bucket-keys.js';
import { fleetPrefix, subjectToken } from './subjects.js';

/** What a daemon tells its fleet about itself. */
export interface DaemonAnnouncement {
  /** The daemon's id in the fleet (one subject token: letters, digits, `_`, `-`). */
  id: string;
  /** Where clients reach it: host:port of its gRPC listener. */
  address: string;
  /** Sessions it runs now, and the most it takes (0: no bound). */
  sessions: number;
  maxSessions: number;
  providers: string[];
  version: string;
  /** The identity of its store's history (the embedded store's `historyId`). */
  historyId: string;
}

/** An announcement as the directory holds it, with when it was last renewed. */
export interface DirectoryEntry extends DaemonAnnouncement {
  announcedAt: number;
}

export interface FleetDirectoryOptions {
  fleet: string;
  /** How long an announcement lives unless renewed (a daemon renews every third of it). */
  ttlMs?: number;
  replicas?: number;
}

/**
 * The daemons of a fleet, in a NATS KV bucket (`BRIDGE_<fleet>_daemons`)
 * whose entries expire: each daemon announces itself and renews the
 * announcement while it runs, so one that is gone (crashed, cut off) falls
 * out of the directory within the TTL without anyone removing it, and one
 * that stops removes itself at once.
 */
export class FleetDirectory {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly bucket: string,
    readonly ttlMs: number,
  ) {}

  static async open(nc: NatsConnection, opts: FleetDirectoryOptions): Promise<FleetDirectory> {
    fleetPrefix(opts.fleet);
    const ttlMs = opts.ttlMs ?? 15_000;
    const bucket = `BRIDGE_${opts.fleet}_daemons`;
    const kv = await new Kvm(nc).create(bucket, {
      history: 1,
      ttl: ttlMs,
      replicas: opts.replicas ?? 1,
    });
    return new FleetDirectory(nc, kv, bucket, ttlMs);
  }

  /**
   * Announces the daemon until `lifetime` ends, renewing it every third of
   * the TTL with what `current()` says then (its session count changes); at
   * the end the entry is removed. An announcement that fails (NATS away, a
   * bucket electing its leader) is reported and tried again, every half
   * second until the first one is stored, then at each tick: meanwhile the
   * entry may expire, and the next renewal brings it back. Resolves once
   * the first announcement is stored, or after `firstWithinMs` (it goes on
   * trying): a daemon serves whether or not the directory has it yet.
   */
  async announce(
    current: () => DaemonAnnouncement,
    lifetime: AbortSignal,
    onError: (err: Error) => void = () => {},
    firstWithinMs = 10_000,
  ): Promise<void> {
    const key = subjectToken(current().id);
    const put = () =>
      this.kv.put(
        key,
        JSON.stringify({ ...current(), announcedAt: Date.now() } satisfies DirectoryEntry),
      );
    let first: () => void = () => {};
    const announced = new Promise<void>((resolve) => {
      first = resolve;
    });
    void (async () => {
      let stored = false;
      while (!lifetime.aborted) {
        try {
          await put();
          if (!stored) first();
          stored = true;
        } catch (err) {
          onError(err as Error);
        }
        try {
          await delay(stored ? this.ttlMs / 3 : 500, undefined, { signal: lifetime });
        } catch {
          break;
        }
      }
      first();
      await this.kv.delete(key).catch((err: Error) => onError(err));
    })();
    await Promise.race([
      announced,
      delay(firstWithinMs, undefined, { signal: lifetime }).catch(() => undefined),
    ]);
  }

  /** Removes daemon `id` from the directory now (a daemon that stops). */
  async leave(id: string): Promise<void> {
    await this.kv.delete(subjectToken(id));
  }

  /** The daemons whose announcements are alive now. */
  async live(): Promise<DirectoryEntry[]> {
    const entries: DirectoryEntry[] = [];
    for (const key of await bucketKeys(this.nc, this.bucket)) {
      const e = await this.kv.get(key);
      if (e && e.operation === 'PUT') entries.push(e.json<DirectoryEntry>());
    }
    return entries.sort((a, b) => a.id.localeCompare(b.id));
  }
}

/**
 * Where a new session goes: the live daemon with the most room (free
 * places, then fewest sessions), among those that offer the provider;
 * undefined when none has room.
 */
export function placeSession(
  daemons: readonly DirectoryEntry[],
  provider: string,
): DirectoryEntry | undefined {
  const room = (d: DirectoryEntry) =>
    d.maxSessions === 0 ? Number.POSITIVE_INFINITY : d.maxSessions - d.sessions;
  return daemons
    .filter((d) => d.providers.includes(provider) && room(d) > 0)
    .sort((a, b) => room(b) - room(a) || a.sessions - b.sessions || a.id.localeCompare(b.id))[0];
}

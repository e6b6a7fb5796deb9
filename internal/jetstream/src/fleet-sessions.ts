import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { bucketKeys } from './bucket-keys.js';
import { fleetPrefix, kvKey } from './subjects.js';

export interface FleetSessionsOptions {
  fleet: string;
  replicas?: number;
  /** How long a record is kept after its last change (0: until removed). */
  maxAgeMs?: number;
}

/** Where a session lives, as its daemon records it with the session itself. */
export interface SessionOwner {
  /** The daemon's id in the fleet directory. */
  daemonId: string;
  /** Where clients reached it: host:port. */
  address: string;
  /** The identity of its store's history: the seqs and cursors of its sessions mean something within it. */
  historyId: string;
}

/** A session's record as the fleet keeps it: what its daemon says it is, and where it lives. */
export interface FleetSessionRecord<R = unknown> {
  sessionId: string;
  projectId: string;
  owner: SessionOwner;
  /** The daemon's own record of the session (opaque here). */
  record: R;
  updatedAt: number;
}

/** A subscriber's acknowledged position on a session, as the fleet keeps it. */
export interface FleetCursor {
  subscriberId: string;
  ackSeq: number;
  touchedAt: number;
}

/**
 * The fleet's sessions and their cursors in a KV bucket
 * (`BRIDGE_<fleet>_sessions`): a record per session under its id, and a
 * cursor per subscriber under `<session>.c.<subscriber>`, so that any
 * daemon of the fleet finds where a session lived and where its readers
 * were. Last write wins: each key has one writer, the session's daemon.
 */
export class FleetSessions {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly bucket: string,
  ) {}

  static async open(nc: NatsConnection, opts: FleetSessionsOptions): Promise<FleetSessions> {
    fleetPrefix(opts.fleet);
    const bucket = `BRIDGE_${opts.fleet}_sessions`;
    const kv = await new Kvm(nc).create(bucket, {
      history: 1,
      replicas: opts.replicas ?? 1,
      ...(opts.maxAgeMs ? { ttl: opts.maxAgeMs } : {}),
    });
    return new FleetSessions(nc, kv, bucket);
  }

  async put<R>(entry: FleetSessionRecord<R>): Promise<void> {
    await this.kv.put(kvKey(entry.sessionId), JSON.stringify(entry));
  }

  async get<R>(sessionId: string): Promise<FleetSessionRecord<R> | undefined> {
    const e = await this.kv.get(kvKey(sessionId));
    return e && e.operation === 'PUT' ? e.json<FleetSessionRecord<R>>() : undefined;
  }

  /** Every session record kept (cursors left out). */
  async list<R>(): Promise<FleetSessionRecord<R>[]> {
    const out: FleetSessionRecord<R>[] = [];
    for (const key of await bucketKeys(this.nc, this.bucket)) {
      if (key.includes('.')) continue;
      const e = await this.kv.get(key);
      if (e && e.operation === 'PUT') out.push(e.json<FleetSessionRecord<R>>());
    }
    return out;
  }

  async remove(sessionId: string): Promise<void> {
    const token = kvKey(sessionId);
    for (const key of await bucketKeys(this.nc, this.bucket, `${token}.c.*`)) {
      await this.kv.delete(key);
    }
    await this.kv.delete(token);
  }

  /**
   * Every session record now, then each change, until `signal` aborts: a
   * record, or `{ sessionId, removed: true }` when one is gone.
   */
  async *watch<R>(
    signal: AbortSignal,
  ): AsyncGenerator<FleetSessionRecord<R> | { sessionId: string; removed: true }> {
    const changes = await this.kv.watch();
    const stop = () => changes.stop();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const e of changes) {
        if (e.key.includes('.')) continue; // a cursor
        if (e.operation === 'PUT') yield e.json<FleetSessionRecord<R>>();
        else yield { sessionId: idOfKey(e.key), removed: true };
      }
      signal.throwIfAborted();
    } finally {
      signal.removeEventListener('abort', stop);
      changes.stop();
    }
  }

  async putCursor(sessionId: string, cursor: FleetCursor): Promise<void> {
    await this.kv.put(cursorKey(sessionId, cursor.subscriberId), JSON.stringify(cursor));
  }

  async cursor(sessionId: string, subscriberId: string): Promise<FleetCursor | undefined> {
    const e = await this.kv.get(cursorKey(sessionId, subscriberId));
    return e && e.operation === 'PUT' ? e.json<FleetCursor>() : undefined;
  }
}

const cursorKey = (sessionId: string, subscriberId: string) =>
  `${kvKey(sessionId)}.c.${kvKey(subscriberId)}`;

/** The id a record's key names (the inverse of kvKey). */
function idOfKey(key: string): string {
  return key.startsWith('=') ? Buffer.from(key.slice(1), 'hex').toString('utf8') : key;
}

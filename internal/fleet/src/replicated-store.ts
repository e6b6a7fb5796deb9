import type {
  CommitSink,
  EventLog,
  SessionRecord,
  SessionStore,
  StoredCursor,
} from '@agent-bridge/bridge';
import type { FleetEvents, FleetSessions, SessionOwner } from '@agent-bridge/jetstream';
import { joined } from './join-fleet.js';
import { LatestWrites } from './latest-writes.js';
import { type ReplicaReport, SessionReplica } from './session-replica.js';

/** The embedded store as a replica reads it: its events of a session after a seq. */
export interface ReplicaSourceStore extends SessionStore {
  storedEvents(sessionId: string, afterSeq?: number): Iterable<{ seq: number; bytes: Uint8Array }>;
}

export interface ReplicatedStoreOptions {
  /** The fleet's stream and session bucket, once the daemon has joined (it may join late). */
  fleet: Promise<{ events: FleetEvents; sessions: FleetSessions }>;
  /** This daemon, as the fleet's session records name it. */
  owner: SessionOwner;
  report: ReplicaReport;
  /** Told of a record or cursor that could not be written to the fleet (it is written again with the next change). */
  recordFailed(sessionId: string, err: Error): void;
  /** The daemon's lifetime: publishing stops with it. */
  lifetime: AbortSignal;
}

/** The embedded store with the fleet beside it (see replicatedStore). */
export interface ReplicatedStore {
  readonly store: SessionStore;
  /** Events committed but not yet in the fleet's stream, over every session. */
  lag(): number;
  /** Session records and cursors not yet written to the fleet's bucket. */
  recordsWaiting(): number;
  /** Resolves once everything committed so far is in the fleet (tests, a graceful stop). */
  settled(): Promise<void>;
}

/**
 * The embedded store, replicated to the fleet: the daemon runs on its own
 * store as ever (its sessions never wait for NATS), and each session's
 * committed events are published to the fleet's stream in order behind it,
 * each once; its records and cursors go to the fleet's KV bucket. While NATS
 * is away the store holds what the fleet lacks (drops wait for the
 * publish) and the replicas catch up when it returns, or when the daemon
 * restarts, from where the stream ends.
 */
export function replicatedStore(
  inner: ReplicaSourceStore,
  opts: ReplicatedStoreOptions,
): ReplicatedStore {
  const replicas = new Map<string, SessionReplica>();
  const logs = new Map<string, EventLog>();
  const replicaOf = (sessionId: string, projectId?: string): SessionReplica => {
    let r = replicas.get(sessionId);
    if (!r) {
      r = new SessionReplica(
        sessionId,
        projectId,
        opts.fleet.then((f) => f.events),
        (after) => copies(inner.storedEvents(sessionId, after)),
        (before) => logs.get(sessionId)?.dropBefore(before),
        opts.report,
        opts.lifetime,
      );
      replicas.set(sessionId, r);
    }
    if (projectId !== undefined) r.belongsTo(projectId);
    return r;
  };
  const writes = new LatestWrites(opts.lifetime, (key, err) =>
    opts.recordFailed(key.split(' ')[1] ?? key, err),
  );
  // A write waits for the daemon to join the fleet (the lifetime's end ends the wait).
  const bucket = async () => (await joined(opts.fleet, opts.lifetime)).sessions;
  const fleetRecord = (record: SessionRecord) =>
    writes.set(`record ${record.request.sessionId}`, async () =>
      (await bucket()).put({
        sessionId: record.request.sessionId,
        projectId: record.request.projectId,
        owner: opts.owner,
        record,
        updatedAt: Date.now(),
      }),
    );

  // What a restart finds in the store goes on to the fleet from where its stream ends.
  for (const s of inner.storedSessions()) {
    const r = replicaOf(s.record.request.sessionId, s.record.request.projectId);
    let last = 0;
    for (const e of s.events()) last = e.seq;
    r.committed(last);
    fleetRecord(s.record);
  }

  const store: SessionStore = {
    historyId: inner.historyId,
    durable: inner.durable,
    collab: inner.collab,
    size: () => inner.size(),
    storedSessions: () => inner.storedSessions(),
    eventLog(sessionId: string, sink: CommitSink, keptFrom?: number): EventLog {
      const replica = replicaOf(sessionId);
      const log = inner.eventLog(
        sessionId,
        {
          committed: (seq) => {
            sink.committed(seq);
            replica.committed(seq);
          },
          failed: (err) => sink.failed(err),
        },
        keptFrom,
      );
      logs.set(sessionId, log);
      return {
        commitsAtOnce: log.commitsAtOnce,
        append: (seq, bytes) => log.append(seq, bytes),
        dropBefore: (seq) => replica.dropBefore(seq),
      };
    },
    saveSession(record: SessionRecord): void {
      inner.saveSession(record);
      replicaOf(record.request.sessionId, record.request.projectId);
      fleetRecord(record);
    },
    async saveCursor(sessionId: string, cursor: StoredCursor): Promise<void> {
      await inner.saveCursor(sessionId, cursor);
      writes.set(`cursor ${sessionId} ${cursor.subscriberId}`, async () =>
        (await bucket()).putCursor(sessionId, cursor),
      );
    },
    forgetSession(sessionId: string): void {
      inner.forgetSession(sessionId);
      const projectId = replicas.get(sessionId)?.project;
      replicas.delete(sessionId);
      logs.delete(sessionId);
      writes.drop(`record ${sessionId}`);
      writes.set(`forget ${sessionId}`, async () => {
        const f = await joined(opts.fleet, opts.lifetime);
        await f.sessions.remove(sessionId);
        if (projectId !== undefined) await f.events.purge(projectId, sessionId);
      });
    },
  };
  return {
    store,
    lag: () => {
      let n = 0;
      for (const r of replicas.values()) n += r.lag;
      return n;
    },
    recordsWaiting: () => writes.waiting,
    settled: async () => {
      await Promise.all([...replicas.values()].map((r) => r.settled()));
      await writes.settled();
    },
  };
}

/** Copies of the store's bytes: a replica holds them across awaits. */
function* copies(
  events: Iterable<{ seq: number; bytes: Uint8Array }>,
): Generator<{ seq: number; bytes: Uint8Array }> {
  for (const e of events) yield { seq: e.seq, bytes: Uint8Array.from(e.bytes) };
}

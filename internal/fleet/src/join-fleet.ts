import { setTimeout as delay } from 'node:timers/promises';
import {
  connectNats,
  FleetBoard,
  FleetDirectory,
  FleetEvents,
  FleetSessions,
  type NatsTarget,
  type SessionOwner,
} from '@agent-bridge/jetstream';

export interface FleetMembership {
  /** The NATS cluster, over mutual TLS. */
  nats: NatsTarget;
  /** The fleet's name: its stream, buckets and subjects. */
  fleet: string;
  /** This daemon in the fleet (a stable id: a restarted daemon takes its sessions back). */
  daemonId: string;
  /** Where clients reach this daemon: host:port. */
  address: string;
  /** The history of this daemon's store. */
  historyId: string;
  /** Copies JetStream keeps of the stream and buckets (3 on a 3-node cluster). */
  replicas: number;
  /** How long a directory entry outlives its last renewal. */
  announceTtlMs: number;
  /** How long the fleet keeps a session's events and record (0: until its daemon forgets it). */
  retentionMs: number;
  /** How long opening the stream and buckets may take, tries included (default a minute). */
  openTimeoutMs?: number;
  /** Told when the connection to NATS is lost and when it is back. */
  onConnection?(change: 'lost' | 'back', server: string): void;
}

/** A daemon's handles on its fleet. */
export interface Fleet {
  readonly owner: SessionOwner;
  readonly events: FleetEvents;
  readonly sessions: FleetSessions;
  readonly directory: FleetDirectory;
  /** The projects' context bus across the fleet. */
  readonly board: FleetBoard;
  /** Drains and closes the connection: what was published is kept. */
  close(): Promise<void>;
}

/**
 * Joins the fleet: connects to NATS (bounded: a cluster that cannot be
 * reached fails the start, saying so) and opens the fleet's stream, session
 * bucket and directory, created as configured when they are new.
 */
async function joinFleet(m: FleetMembership): Promise<Fleet> {
  const nc = await connectNats(m.nats);
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') m.onConnection?.('lost', s.server);
      if (s.type === 'reconnect') m.onConnection?.('back', s.server);
    }
  })();
  try {
    const bounds = { fleet: m.fleet, replicas: m.replicas };
    // A cluster just started (or electing a leader) answers late: try again, within a bound.
    const deadline = Date.now() + (m.openTimeoutMs ?? 60_000);
    const events = await untilOpen(deadline, () =>
      FleetEvents.open(nc, { ...bounds, maxAgeMs: m.retentionMs }),
    );
    const sessions = await untilOpen(deadline, () =>
      FleetSessions.open(nc, { ...bounds, maxAgeMs: m.retentionMs }),
    );
    const directory = await untilOpen(deadline, () =>
      FleetDirectory.open(nc, { ...bounds, ttlMs: m.announceTtlMs }),
    );
    return {
      owner: { daemonId: m.daemonId, address: m.address, historyId: m.historyId },
      events,
      sessions,
      directory,
      board: FleetBoard.open(nc, { fleet: m.fleet }),
      close: async () => {
        await nc.drain().catch(() => nc.close());
      },
    };
  } catch (err) {
    await nc.close();
    throw err;
  }
}

/** `open()`, tried again every second after a failure until `deadline`; then its last failure. */
async function untilOpen<T>(deadline: number, open: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await open();
    } catch (err) {
      if (Date.now() + 1000 >= deadline) throw err;
      await delay(1000);
    }
  }
}

/**
 * `joinFleet`, tried again until it succeeds or `signal` aborts (then it
 * rejects with the signal's reason): a daemon whose NATS cluster is away
 * when it starts serves on its embedded store meanwhile, and joins when the
 * cluster is back. Each failed attempt is reported; the pause between
 * attempts grows from 1 s to 30 s.
 */
export async function keepJoining(
  m: FleetMembership,
  signal: AbortSignal,
  onFailure: (err: Error) => void,
): Promise<Fleet> {
  let pause = 1000;
  for (;;) {
    signal.throwIfAborted();
    try {
      const fleet = await joinFleet(m);
      if (signal.aborted) {
        await fleet.close();
        signal.throwIfAborted();
      }
      return fleet;
    } catch (err) {
      signal.throwIfAborted();
      onFailure(err as Error);
      await delay(pause, undefined, { signal }).catch(() => undefined);
      pause = Math.min(pause * 2, 30_000);
    }
  }
}

/** `fleet` once it has joined; rejects when `signal` aborts first. */
export function joined<T>(fleet: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    fleet.then(
      (f) => {
        signal.removeEventListener('abort', stop);
        resolve(f);
      },
      (err) => {
        signal.removeEventListener('abort', stop);
        reject(err);
      },
    );
  });
}

import { setTimeout as delay } from 'node:timers/promises';
import { batchesOf, type FleetEvents, type SessionTail } from '@agent-bridge/jetstream';
import { joined } from './join-fleet.js';

/** Where a replica reads the events it publishes: the embedded store, which holds them until published. */
export type EventSource = (afterSeq: number) => Iterable<{ seq: number; bytes: Uint8Array }>;

/** What replicas report, for logs and metrics. */
export interface ReplicaReport {
  /** A publish failed (it is tried again): NATS away, a leader election, a refusal. */
  failed(sessionId: string, err: Error): void;
  published(count: number): void;
}

/** Events read from the store at a time: the read transaction is not held across publishes. */
const CHUNK = 1024;
/**
 * The most one message packs (NATS refuses payloads over the server's
 * max_payload, 1 MiB by default); an event larger than this goes alone
 * (docs/operations.md: raise max_payload for agents that write such lines).
 */
const MAX_MESSAGE_BYTES = 512 * 1024;
/** Longest wait between tries after a failure that `append` does not retry itself. */
const MAX_BACKOFF_MS = 30_000;

/**
 * One session's events on their way to the fleet's stream: each committed
 * event, in order, from the embedded store, after the one JetStream holds
 * last (asked at the start, so a daemon restarted after an outage goes on
 * where the fleet stopped). Runs while there is something to publish;
 * `committed` wakes it. Events the store is told to drop are dropped only
 * once they are published (`dropBefore`), so an outage of NATS loses
 * nothing the store can hold.
 */
export class SessionReplica {
  private target = 0;
  private tail: SessionTail | undefined | null = null; // null: not asked yet
  private running: Promise<void> | undefined;
  private heldDrop = 0;
  private dropped = 0;

  constructor(
    readonly sessionId: string,
    private projectId: string | undefined,
    /** The fleet's stream, once the daemon has joined the fleet. */
    private readonly fleetEvents: Promise<FleetEvents>,
    private readonly source: EventSource,
    private readonly drop: (beforeSeq: number) => void,
    private readonly report: ReplicaReport,
    private readonly lifetime: AbortSignal,
  ) {}

  /** The session's project, once known. */
  get project(): string | undefined {
    return this.projectId;
  }

  /** The session's project: its subject. Publishing waits for it. */
  belongsTo(projectId: string): void {
    this.projectId ??= projectId;
    this.kick();
  }

  /** Events up to `seq` are committed in the store. */
  committed(seq: number): void {
    if (seq > this.target) this.target = seq;
    this.kick();
  }

  /** The store may drop events before `seq` once they are published. */
  dropBefore(seq: number): void {
    if (seq > this.heldDrop) this.heldDrop = seq;
    this.release();
  }

  /** Events committed but not yet in the fleet's stream. */
  get lag(): number {
    return Math.max(0, this.target - (this.tail?.seq ?? 0));
  }

  /** Resolves once every event committed so far is published (or the lifetime ended). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private kick(): void {
    if (this.running || this.projectId === undefined || this.lifetime.aborted) return;
    if (this.tail !== null && (this.tail?.seq ?? 0) >= this.target) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if ((this.tail?.seq ?? 0) < this.target) this.kick();
    });
  }

  private async run(): Promise<void> {
    const projectId = this.projectId!;
    const signal = this.lifetime;
    let backoff = 500;
    // Until the daemon has joined the fleet, the store holds what waits.
    const events = await joined(this.fleetEvents, signal).catch(() => undefined);
    if (!events) return;
    while (!signal.aborted) {
      try {
        if (this.tail === null) this.tail = await events.tail(projectId, this.sessionId, signal);
        if ((this.tail?.seq ?? 0) >= this.target) return;
        const chunk = take(this.source(this.tail?.seq ?? 0), CHUNK);
        if (chunk.length === 0) return; // nothing more stored yet
        // Many events a message, each message within NATS's payload bound.
        for (const batch of batchesOf(
          chunk.filter((e) => e.seq <= this.target),
          MAX_MESSAGE_BYTES,
        )) {
          this.tail = await events.append(projectId, this.sessionId, batch, this.tail, {
            signal,
            onRetry: (err) => this.report.failed(this.sessionId, err),
          });
          this.report.published(batch.length);
        }
        this.release();
        backoff = 500;
      } catch (err) {
        if (signal.aborted) return;
        // Not one append retries by itself (a refusal, a stream that is gone):
        // ask JetStream where the session stands and go on from there.
        this.report.failed(this.sessionId, err as Error);
        this.tail = null;
        await delay(backoff, undefined, { signal }).catch(() => undefined);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  private release(): void {
    const published = this.tail?.seq ?? 0;
    const upTo = Math.min(this.heldDrop, published + 1);
    if (upTo > this.dropped && upTo > 1) {
      this.dropped = upTo;
      this.drop(upTo);
    }
  }
}

function take<T>(items: Iterable<T>, n: number): T[] {
  const out: T[] = [];
  for (const item of items) {
    out.push(item);
    if (out.length >= n) break;
  }
  return out;
}

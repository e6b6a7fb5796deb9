import { setTimeout as delay } from 'node:timers/promises';
import {
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { headers, type NatsConnection, nanos } from '@nats-io/transport-node';
import { FIRST_SEQ_HEADER, packEvents, type StoredEvent, unpackEvents } from './event-batch.js';
import { eventMsgId, fleetPrefix, sessionSubject } from './subjects.js';

/** The header that carries the seq (within its session) of a message's last event. */
export const SEQ_HEADER = 'Bridge-Seq';

export interface FleetEventsOptions {
  /** The fleet's name: its stream, its subjects (`bridge.<fleet>.…`), its permissions. */
  fleet: string;
  /** Copies JetStream keeps of each event: 1, or 3 on a 3-node cluster (R3). */
  replicas?: number;
  /** How long a retried publish is recognised by its id alone (default 2 minutes). */
  duplicateWindowMs?: number;
  /** Events older than this are dropped (0: kept until the size bound). */
  maxAgeMs?: number;
  /** The most bytes the stream keeps; the oldest go first (-1: no bound). */
  maxBytes?: number;
  /** How long one publish waits for JetStream's acknowledgement. */
  publishTimeoutMs?: number;
}

/** Where a session's history in JetStream ends: its last event's seq and stream position. */
export interface SessionTail {
  seq: number;
  streamSeq: number;
}

/**
 * A fleet's session events in one JetStream stream, `BRIDGE_<fleet>`, with
 * a subject per project and session. Each event is published with the
 * stream position of the session's previous one as its expected last
 * position: JetStream stores it only if nothing else came in between, so
 * an event is stored once and in order even when a publish is retried
 * after a lost acknowledgement, however late (its id alone is
 * recognised only within the duplicate window).
 */
export class FleetEvents {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly stream: string,
    private readonly prefix: string,
    private readonly publishTimeoutMs: number,
  ) {}

  /** Connects to the fleet's stream, creating it (or updating its bounds) as configured. */
  static async open(nc: NatsConnection, opts: FleetEventsOptions): Promise<FleetEvents> {
    const prefix = fleetPrefix(opts.fleet);
    const stream = `BRIDGE_${opts.fleet}`;
    const jsm = await jetstreamManager(nc, { timeout: opts.publishTimeoutMs ?? 10_000 });
    const config = {
      name: stream,
      // The projects' context bus travels in the same stream (FleetBoard).
      subjects: [`${prefix}.events.>`, `${prefix}.collab.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      num_replicas: opts.replicas ?? 1,
      duplicate_window: nanos(opts.duplicateWindowMs ?? 120_000),
      max_age: nanos(opts.maxAgeMs ?? 0),
      max_bytes: opts.maxBytes ?? -1,
    };
    try {
      await jsm.streams.info(stream);
      const { name: _, ...update } = config;
      await jsm.streams.update(stream, update);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await jsm.streams.add(config);
    }
    return new FleetEvents(
      jetstream(nc, { timeout: opts.publishTimeoutMs ?? 10_000 }),
      jsm,
      stream,
      prefix,
      opts.publishTimeoutMs ?? 10_000,
    );
  }

  /**
   * Where a session's history ends in JetStream (undefined: nothing of it
   * is there); asked again while the cluster elects a leader, until `signal`.
   */
  async tail(
    projectId: string,
    sessionId: string,
    signal: AbortSignal = AbortSignal.timeout(30_000),
  ): Promise<SessionTail | undefined> {
    const subject = sessionSubject(this.prefix, projectId, sessionId);
    const last = await retrying(signal, () =>
      this.jsm.streams.getMessage(this.stream, { last_by_subj: subject }),
    );
    if (!last) return undefined;
    return { seq: Number(last.header.get(SEQ_HEADER)), streamSeq: last.seq };
  }

  /**
   * Stores consecutive events of a session as one message, after
   * `previous` (the session's tail, undefined before its first event).
   * Resolves to the new tail. A publish whose predecessor is not the
   * stream's last for the session is refused by JetStream (`wrong last
   * sequence`): the caller asks `tail` where the session stands and goes on
   * from there.
   */
  async publish(
    projectId: string,
    sessionId: string,
    events: readonly StoredEvent[],
    previous: SessionTail | undefined,
  ): Promise<SessionTail> {
    const first = events[0]!.seq;
    const last = events.at(-1)!.seq;
    const h = headers();
    h.set(SEQ_HEADER, String(last));
    h.set(FIRST_SEQ_HEADER, String(first));
    const ack = await this.js.publish(
      sessionSubject(this.prefix, projectId, sessionId),
      packEvents(events),
      {
        msgID: eventMsgId(sessionId, first, last),
        headers: h,
        timeout: this.publishTimeoutMs,
        expect: { lastSubjectSequence: previous?.streamSeq ?? 0 },
      },
    );
    return { seq: last, streamSeq: ack.seq };
  }

  /**
   * `publish`, until JetStream has the events: a publish that failed in a
   * way that may pass (no stream leader while one is elected, no answer in
   * time, no connection while it reconnects) is tried again, every
   * `retryMs`, until `signal` aborts. Trying again is safe: the same events
   * after the same predecessor are stored at most once, and a retry refused
   * because its first try was stored after all finds them at the session's
   * tail.
   */
  async append(
    projectId: string,
    sessionId: string,
    events: readonly StoredEvent[],
    previous: SessionTail | undefined,
    opts: { signal: AbortSignal; retryMs?: number; onRetry?: (err: Error) => void },
  ): Promise<SessionTail> {
    const last = events.at(-1)!.seq;
    for (let attempt = 0; ; attempt++) {
      opts.signal.throwIfAborted();
      try {
        return await this.publish(projectId, sessionId, events, previous);
      } catch (err) {
        if (attempt > 0 && isWrongLast(err)) {
          const tail = await this.tail(projectId, sessionId, opts.signal);
          if (tail?.seq === last) return tail;
        }
        if (!isTransient(err)) throw err;
        opts.onRetry?.(err as Error);
        await pause(opts.retryMs ?? 250, opts.signal, err);
      }
    }
  }

  /** Removes a session's events from the stream (its retention has passed). */
  async purge(projectId: string, sessionId: string): Promise<void> {
    await this.jsm.streams.purge(this.stream, {
      filter: sessionSubject(this.prefix, projectId, sessionId),
    });
  }

  /**
   * A session's events after `afterSeq`, oldest first, up to the tail it
   * had when the read began; ends there. Throws when `signal` aborts first
   * (default: a minute).
   */
  async *read(
    projectId: string,
    sessionId: string,
    afterSeq = 0,
    signal: AbortSignal = AbortSignal.timeout(60_000),
  ): AsyncGenerator<StoredEvent> {
    const end = await this.tail(projectId, sessionId, signal);
    if (!end || end.seq <= afterSeq) return;
    const subject = sessionSubject(this.prefix, projectId, sessionId);
    // Creating the reader's consumer fails while the cluster elects a leader.
    const consumer = await retrying(signal, () =>
      this.js.consumers.get(this.stream, {
        filter_subjects: subject,
        deliver_policy: DeliverPolicy.All,
      }),
    );
    const messages = await consumer.consume({ max_messages: 256 });
    // A read that stalls (no server answers) ends at the signal, and says so:
    // ending quietly would pass a partial history off as whole.
    const stop = () => void messages.close();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const m of messages) {
        const last = Number(m.headers?.get(SEQ_HEADER));
        const first = Number(m.headers?.get(FIRST_SEQ_HEADER) ?? last);
        if (last > afterSeq) {
          for (const e of unpackEvents(m.data, first)) if (e.seq > afterSeq) yield e;
        }
        if (m.seq >= end.streamSeq) return;
      }
      signal.throwIfAborted();
      throw new Error(`the read of session ${sessionId} ended before its last event (${end.seq})`);
    } finally {
      signal.removeEventListener('abort', stop);
      await messages.close();
    }
  }
}

/** `attempt()` until it succeeds or fails for good, trying again every 250 ms on a failure that may pass. */
async function retrying<T>(signal: AbortSignal, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    signal.throwIfAborted();
    try {
      return await attempt();
    } catch (err) {
      if (!isTransient(err)) throw err;
      await pause(250, signal, err);
    }
  }
}

/**
 * A failure that may pass: no stream leader yet (nats.js reports the
 * no-responders of a publish as "jetstream is not enabled", the
 * no-responders as its cause), no answer in time, no connection now.
 */
function isTransient(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.status === 503;
  type Failure = {
    name?: string;
    message?: string;
    isNoResponders?: () => boolean;
    cause?: unknown;
  };
  const e = err as Failure | undefined;
  const cause = e?.cause as Failure | undefined;
  return (
    e?.isNoResponders?.() === true ||
    cause?.isNoResponders?.() === true ||
    e?.name === 'TimeoutError' ||
    /timeout|no responders|disconnect|connection/i.test(e?.message ?? '')
  );
}

/** Waits `ms` before another try; when `signal` ends the wait, the last failure says why. */
async function pause(ms: number, signal: AbortSignal, last: unknown): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    throw new Error(`NATS did not recover in time: ${(last as Error).message}`, { cause: last });
  }
}

function isWrongLast(err: unknown): boolean {
  return err instanceof JetStreamApiError && /wrong last sequence/i.test(err.message);
}

function isNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.status === 404;
}

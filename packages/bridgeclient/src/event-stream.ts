import type {
  BridgeServiceClient,
  SessionEvent as ProtoEvent,
  StreamEventsRequest,
} from '@agent-bridge/proto';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import type { Cursor, CursorKey, CursorStore } from './cursor-store.js';
import { CursorLostError, fromServiceError, NotFoundError } from './errors.js';
import type { CallOptions } from './options.js';
import { type Backoff, backoffDelay, isTransient, pause } from './private/backoff.js';
import { eventFromWire, seqToWire } from './private/convert.js';
import { type Health, isTerminal, type SessionEvent } from './types.js';

export interface EventStreamOptions {
  /**
   * A stable id of this reader (1-128 of [A-Za-z0-9._:-]). With it, what
   * the loop has processed is acknowledged to the daemon and saved in the
   * client's cursor store, and a later stream with the same id resumes
   * after it, even from another process. Without it, the stream resumes
   * only across its own reconnects.
   */
  subscriberId?: string;
  /** Start after this seq (0: from the first event ever stored), whatever cursor is stored. */
  afterSeq?: number;
  /** Many events per message (StreamEventBatches). Default true. */
  batch?: boolean;
  /**
   * Acknowledge at the latest after this many processed events. The stream
   * also acknowledges whenever it has caught up with the daemon, and when
   * it ends. Default 100.
   */
  ackEvery?: number;
  /** Aborting ends the iteration: the loop rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The client calls an EventStream makes. */
interface StreamClient {
  readonly target: string;
  readonly projectId: string;
  health(opts: CallOptions): Promise<Health>;
  ackEvents(
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    opts: CallOptions,
  ): Promise<number>;
}

/** What an EventStream needs from its client. */
export interface StreamContext {
  client: StreamClient;
  raw: BridgeServiceClient;
  cursors: CursorStore;
  backoff: Backoff;
  reconnectMs: number;
  /** True once the client was closed. */
  isClosed(): boolean;
}

type Reader = ClientReadableStream<ProtoEvent> | ClientReadableStream<{ events: ProtoEvent[] }>;

/**
 * One session's events: the stored ones, then live ones, until the
 * terminal event, after which the iteration ends. Iterate it once, with
 * `for await`.
 *
 * Delivery: an event counts as processed once the loop body that got it
 * returns; only processed events are acknowledged. When the connection
 * breaks, the stream reconnects with backoff and resumes after the last
 * processed event, skipping anything it already delivered, so every event
 * reaches the loop once and in order. A body that throws ends the
 * iteration without that event being processed: the next stream with the
 * same subscriber gets it again. Events the daemon evicted before this
 * reader got them arrive as one BUFFER_OVERFLOW event whose `missing` says
 * which. If the daemon restarted meanwhile (its instance id changed), the
 * iteration fails with CursorLostError.
 */
export class EventStream implements AsyncIterable<SessionEvent> {
  private processed: number | undefined;
  private instanceId = '';
  private readonly stop = new AbortController();
  private used = false;
  private ack: Acker | undefined;

  constructor(
    private readonly ctx: StreamContext,
    readonly sessionId: string,
    private readonly opts: EventStreamOptions,
  ) {
    if (opts.afterSeq !== undefined) seqToWire(opts.afterSeq, 'afterSeq');
    if (opts.ackEvery !== undefined && !(Number.isInteger(opts.ackEvery) && opts.ackEvery > 0)) {
      throw new TypeError('ackEvery must be a positive integer');
    }
  }

  /** The seq of the last event the loop finished processing; undefined before the first. */
  get processedSeq(): number | undefined {
    return this.processed;
  }

  /** Ends the iteration after the event being processed (if any); what was processed is acknowledged. */
  close(): void {
    this.stop.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    if (this.used) throw new Error('an EventStream can be iterated only once');
    this.used = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<SessionEvent> {
    const signal = this.opts.signal
      ? AbortSignal.any([this.opts.signal, this.stop.signal])
      : this.stop.signal;
    const key = this.cursorKey();
    // An explicit afterSeq overrides whatever cursor is stored.
    const stored =
      key && this.opts.afterSeq === undefined ? await this.ctx.cursors.load(key) : undefined;
    this.instanceId = (await this.ctx.client.health({ signal })).serverInstanceId;
    if (stored && stored.instanceId !== this.instanceId) throw this.cursorLost(stored.instanceId);
    this.processed = this.opts.afterSeq ?? stored?.ackSeq;
    if (key) this.ack = new Acker(this.ctx, key, this.sessionId, () => this.instanceId);
    let failingSince: number | undefined;
    let attempt = 0;
    try {
      for (;;) {
        const reader = this.open(signal);
        try {
          for await (const events of messages(reader, this.opts.batch ?? true)) {
            failingSince = undefined;
            attempt = 0;
            for (const event of events) {
              // A resume may repeat what this reader already got: never twice.
              if (this.processed !== undefined && event.seq <= this.processed) continue;
              yield event;
              this.processed = event.seq;
              this.ack?.processed(event.seq, this.opts.ackEvery ?? 100);
              if (isTerminal(event)) return;
            }
            // Caught up with the daemon: a good moment to acknowledge.
            if (reader.readableLength === 0) this.ack?.now();
          }
          // The daemon completes a stream only after the session's end.
          return;
        } catch (err) {
          if (this.stop.signal.aborted) return;
          if (signal.aborted) throw signal.reason;
          if (!isServiceError(err)) throw err;
          const e = fromServiceError(err, this.method());
          // A closed client ends its streams: reconnecting is pointless.
          if (this.ctx.isClosed() || !(e instanceof NotFoundError || isTransient(e))) throw e;
          failingSince ??= Date.now();
          await this.checkInstance(signal);
          if (e instanceof NotFoundError || Date.now() - failingSince >= this.ctx.reconnectMs) {
            throw e;
          }
          const wait = backoffDelay(this.ctx.backoff, attempt++);
          await pause(Math.max(e.retryAfterMs ?? 0, wait), signal).catch((reason: unknown) => {
            if (!this.stop.signal.aborted) throw reason;
          });
          if (this.stop.signal.aborted) return;
        } finally {
          reader.cancel();
        }
      }
    } finally {
      await this.ack?.flush();
    }
  }

  private open(signal: AbortSignal): Reader {
    const req: StreamEventsRequest = {
      sessionId: this.sessionId,
      afterSeq: this.processed === undefined ? undefined : seqToWire(this.processed, 'afterSeq'),
      subscriberId: this.opts.subscriberId ?? '',
    };
    const reader =
      (this.opts.batch ?? true)
        ? this.ctx.raw.streamEventBatches(req)
        : this.ctx.raw.streamEvents(req);
    const onAbort = () => reader.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    reader.on('close', () => signal.removeEventListener('abort', onAbort));
    return reader;
  }

  /** Fails with CursorLostError when the daemon is not the one the cursor came from. */
  private async checkInstance(signal: AbortSignal): Promise<void> {
    let now: string;
    try {
      now = (await this.ctx.client.health({ signal, timeoutMs: 10_000 })).serverInstanceId;
    } catch {
      if (signal.aborted && !this.stop.signal.aborted) throw signal.reason;
      return; // unreachable for now, or closing: the loop decides
    }
    if (now !== this.instanceId) throw this.cursorLost(this.instanceId, now);
  }

  private cursorLost(before: string, now = this.instanceId): CursorLostError {
    return new CursorLostError(
      `the daemon at ${this.ctx.client.target} restarted: session ${this.sessionId}, its events and cursors are gone`,
      before,
      now,
    );
  }

  private cursorKey(): CursorKey | undefined {
    const subscriberId = this.opts.subscriberId;
    if (!subscriberId) return undefined;
    return {
      target: this.ctx.client.target,
      projectId: this.ctx.client.projectId,
      sessionId: this.sessionId,
      subscriberId,
    };
  }

  private method(): string {
    return (this.opts.batch ?? true) ? 'StreamEventBatches' : 'StreamEvents';
  }
}

/** The stream's messages as arrays of events. */
async function* messages(reader: Reader, batch: boolean): AsyncGenerator<SessionEvent[]> {
  for await (const msg of reader) {
    yield batch
      ? (msg as { events: ProtoEvent[] }).events.map(eventFromWire)
      : [eventFromWire(msg as ProtoEvent)];
  }
}

const isServiceError = (err: unknown): err is ServiceError =>
  err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number';

/**
 * Acknowledges processed events, to the daemon (AckEvents) and to the
 * cursor store, without holding up the loop: one acknowledgement at a
 * time, always of the newest processed seq. A failed acknowledgement is
 * tried again with the next one; at worst a later stream is given some
 * events twice, never none.
 */
class Acker {
  private target = 0;
  private done = 0;
  private unacked = 0;
  private running: Promise<void> | undefined;

  constructor(
    private readonly ctx: StreamContext,
    private readonly key: CursorKey,
    private readonly sessionId: string,
    private readonly instanceId: () => string,
  ) {}

  processed(seq: number, every: number): void {
    this.target = seq;
    if (++this.unacked >= every) this.now();
  }

  now(): void {
    if (this.target <= this.done) return;
    this.unacked = 0;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  async flush(): Promise<void> {
    await this.running;
    this.now();
    await this.running;
  }

  private async drain(): Promise<void> {
    while (this.target > this.done) {
      const seq = this.target;
      const cursor: Cursor = { ackSeq: seq, instanceId: this.instanceId() };
      const results = await Promise.allSettled([
        this.ctx.client.ackEvents(this.sessionId, this.key.subscriberId, seq, {
          timeoutMs: 10_000,
        }),
        this.ctx.cursors.save(this.key, cursor),
      ]);
      if (results.some((r) => r.status === 'rejected')) return;
      this.done = seq;
    }
  }
}

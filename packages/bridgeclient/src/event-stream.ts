import type {
  BridgeServiceClient,
  SessionEvent as ProtoEvent,
  StreamEventsRequest,
} from '@agent-bridge/proto';
import { type Scope, scope } from '@agent-bridge/scope';
import type { ClientReadableStream, Metadata, ServiceError } from '@grpc/grpc-js';
import { type AckContext, Acker } from './acker.js';
import type { CursorKey, CursorStore } from './cursor-store.js';
import {
  BridgeError,
  CursorLostError,
  DeadlineExceededError,
  fromServiceError,
  NotFoundError,
  TlsRefusalError,
  UnavailableError,
} from './errors.js';
import type { CallOptions } from './options.js';
import { type Backoff, backoffDelay, isTransient, pause } from './private/backoff.js';
import { eventFromWire, seqToWire } from './private/convert.js';
import { RefusalGrace } from './private/refusal-grace.js';
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
  /** Aborting ends the iteration after the event being processed: the loop rejects with the reason. */
  signal?: AbortSignal;
}

/** The client calls an EventStream makes. */
interface StreamClient {
  readonly target: string;
  readonly projectId: string;
  health(opts: CallOptions): Promise<Health>;
}

/** What an EventStream needs from its client. */
export interface StreamContext extends Pick<AckContext, 'sendAck'> {
  client: StreamClient;
  /**
   * The daemon's channel: its client is taken afresh for each connection,
   * and `connection()` tells which connection it is on (see DaemonChannel).
   */
  channel: { readonly raw: BridgeServiceClient; connection(): number | undefined };
  cursors: CursorStore;
  backoff: Backoff;
  reconnectMs: number;
  /** Aborted when the client is closed: its streams end with an error saying so. */
  clientClosed: AbortSignal;
  /** Makes the next call use a freshly minted token. */
  renewToken(): void;
}

/** The daemon's trailer on a stream it ended because the token that opened it expired. */
const AUTH_EXPIRED_TRAILER = 'bridge-auth-expired';

/** The daemon's header naming the history a stream's events belong to. */
const HISTORY_HEADER = 'bridge-history-id';

/** How long the Health call that checks the daemon's history may take, per connection. */
const HEALTH_TIMEOUT_MS = 10_000;

/** Fresh-token resumes in a row with no event between them before the stream gives up. */
const MAX_REAUTH_STREAK = 3;

type Reader = ClientReadableStream<ProtoEvent> | ClientReadableStream<{ events: ProtoEvent[] }>;

/**
 * How a connection attempt ended: the session's end, or a failure, after
 * the daemon had answered (`reachable`) and maybe delivered events.
 */
type Outcome =
  | 'done'
  | { failed: BridgeError; reachable: boolean; delivered: boolean; tokenExpired: boolean };

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
/** The reason of a stream ended by close(): quietly, what was processed acknowledged. */
class StreamClosed extends Error {
  constructor() {
    super('the event stream was closed');
    this.name = 'StreamClosed';
  }
}

export class EventStream implements AsyncIterable<SessionEvent> {
  private processed: number | undefined;
  private instanceId = '';
  /** The stream's scope: ended by `close`, with the client, or by the caller's signal. */
  private readonly lifetime: Scope;
  private readonly signal: AbortSignal;
  private used = false;
  private ack: Acker | undefined;
  /** The connection on which the daemon's history was last checked (its stream's header). */
  private checked: number | undefined;

  constructor(
    private readonly ctx: StreamContext,
    readonly sessionId: string,
    private readonly opts: EventStreamOptions,
  ) {
    if (opts.afterSeq !== undefined) seqToWire(opts.afterSeq, 'afterSeq');
    if (opts.ackEvery !== undefined && !(Number.isInteger(opts.ackEvery) && opts.ackEvery > 0)) {
      throw new TypeError('ackEvery must be a positive integer');
    }
    this.lifetime = scope([ctx.clientClosed, ...(opts.signal ? [opts.signal] : [])]);
    this.signal = this.lifetime.signal;
  }

  /** The seq of the last event the loop finished processing; undefined before the first. */
  get processedSeq(): number | undefined {
    return this.processed;
  }

  /**
   * The history the events came from (the daemon's server instance id
   * today); '' before the first connection. Pass it to `ackEvents` when
   * acknowledging by hand.
   */
  get historyId(): string {
    return this.instanceId;
  }

  /** Ends the iteration after the event being processed (if any); what was processed is acknowledged. */
  close(): void {
    this.lifetime.end(new StreamClosed());
  }

  /** close() ended the stream (not the client, not the caller's signal). */
  private get closedQuietly(): boolean {
    return this.signal.reason instanceof StreamClosed;
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    if (this.used) throw new Error('an EventStream can be iterated only once');
    this.used = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<SessionEvent> {
    let failingSince: number | undefined;
    let attempt = 0;
    let reauthStreak = 0;
    const refusals = new RefusalGrace(this.ctx.reconnectMs);
    try {
      for (;;) {
        if (this.ended()) return;
        const outcome = yield* this.connect();
        if (outcome === 'done' || this.ended()) return;
        const { failed, reachable, delivered, tokenExpired } = outcome;
        if (delivered) reauthStreak = 0;
        if (tokenExpired && reauthStreak < MAX_REAUTH_STREAK) {
          // The stream outlived its token: resume at once with a fresh one.
          reauthStreak++;
          this.ctx.renewToken();
          continue;
        }
        // A daemon that answers, even on a stream that idles, starts a new reconnect budget;
        // only delivered events reset the backoff, so a stream that keeps breaking is not retried hot.
        if (reachable) {
          failingSince = undefined;
          refusals.reset();
        }
        if (delivered) attempt = 0;
        failingSince ??= Date.now();
        if (refusals.endsWith(failed)) throw failed;
        // A refusal still within its grace is retried like the network it may be.
        const retried = failed instanceof TlsRefusalError || isTransient(failed);
        if (!retried || Date.now() - failingSince >= this.ctx.reconnectMs) throw failed;
        // The first reconnect after a break is immediate; repeated failures back off.
        const backoff = attempt === 0 ? 0 : backoffDelay(this.ctx.backoff, attempt - 1);
        attempt++;
        await pause(Math.max(failed.retryAfterMs ?? 0, backoff), this.signal).catch(
          () => undefined,
        );
      }
    } finally {
      // Acknowledge what was processed; an abort does not wait for the daemon.
      await this.ack?.flush(this.signal.aborted && !this.closedQuietly);
      // Done either way: the stream lets go of the client's and the caller's signals.
      this.lifetime.end(new StreamClosed());
    }
  }

  /**
   * True when the iteration must end: quietly after close(), with the
   * signal's reason after an abort, with an error after the client closed.
   */
  private ended(): boolean {
    if (this.closedQuietly) return true;
    if (this.ctx.clientClosed.aborted) {
      throw new BridgeError('CANCELLED', `the client was closed (session ${this.sessionId})`);
    }
    if (this.signal.aborted) throw this.signal.reason;
    return false;
  }

  /** One connection: (re)learn the daemon's instance, open a stream, deliver until it ends. */
  private async *connect(): AsyncGenerator<SessionEvent, Outcome> {
    let reachable = false;
    let delivered = false;
    let reader: Reader | undefined;
    try {
      await this.checkInstance();
      reachable = true;
      const opened = this.open();
      reader = opened.reader;
      for await (const events of messages(reader, this.opts.batch ?? true)) {
        // Its header came before any event: they must be of the history acked so far.
        const history = opened.history();
        if (history !== undefined && history !== this.instanceId) {
          throw this.cursorLost(this.instanceId, history);
        }
        // A daemon too old to send the header: the connection that delivers is checked.
        if (history === undefined && !delivered) this.checked = this.ctx.channel.connection();
        delivered = true;
        for (const event of events) {
          // A resume may repeat what this reader already got: never twice.
          if (this.processed !== undefined && event.seq <= this.processed) continue;
          yield event;
          this.processed = event.seq;
          this.ack?.processed(event.seq, this.opts.ackEvery ?? 100);
          if (isTerminal(event) || this.ended()) return 'done';
        }
        // Caught up with the daemon: a good moment to acknowledge.
        if (reader.readableLength === 0) this.ack?.now();
      }
      // The daemon completes a stream only after the session's end.
      return 'done';
    } catch (err) {
      if (err instanceof CursorLostError) throw err;
      if (this.ended()) return 'done';
      const tokenExpired = isAuthExpiry(err);
      const failed = toBridgeError(err, this.method());
      if (failed instanceof NotFoundError) {
        // The session is gone for good (or the daemon restarted): its cursor is no use any more.
        await this.checkInstance().catch((e: unknown) => {
          if (e instanceof CursorLostError) throw e;
        });
        const key = this.cursorKey();
        if (key) await this.ctx.cursors.delete(key);
        throw failed;
      }
      return { failed, reachable, delivered, tokenExpired };
    } finally {
      reader?.cancel();
    }
  }

  /**
   * Learns the daemon's instance id, and fails with CursorLostError when it
   * is not the one the cursor came from. The first time, also takes the
   * stored cursor and starts acknowledging.
   */
  private async checkInstance(): Promise<void> {
    const timeoutMs = Math.min(HEALTH_TIMEOUT_MS, this.ctx.reconnectMs);
    const now = (
      await this.ctx.client.health({ signal: this.signal, timeoutMs }).catch((err: unknown) => {
        // No answer in time is a connection that did not come up: retried like one.
        if (!(err instanceof DeadlineExceededError)) throw err;
        throw new UnavailableError(
          'UNAVAILABLE',
          `the daemon at ${this.ctx.client.target} did not answer Health within ${timeoutMs} ms`,
          { method: 'Health', cause: err },
        );
      })
    ).serverInstanceId;
    if (this.instanceId !== '') {
      if (now !== this.instanceId) throw this.cursorLost(this.instanceId, now);
      return;
    }
    const key = this.cursorKey();
    const stored = key ? await this.ctx.cursors.load(key) : undefined;
    if (stored && this.opts.afterSeq === undefined && stored.instanceId !== now) {
      throw this.cursorLost(stored.instanceId, now);
    }
    this.instanceId = now;
    // An explicit afterSeq overrides the stored cursor; the stored one never moves back.
    this.processed = this.opts.afterSeq ?? stored?.ackSeq;
    if (key) {
      const floor = stored?.instanceId === now ? stored.ackSeq : 0;
      const ackContext: AckContext = {
        sendAck: this.ctx.sendAck,
        cursors: this.ctx.cursors,
        onCheckedConnection: () =>
          this.checked !== undefined && this.ctx.channel.connection() === this.checked,
      };
      this.ack = new Acker(ackContext, key, now, floor);
    }
  }

  /** Opens the stream; `history()` is what its header said (undefined from a daemon that sends none). */
  private open(): { reader: Reader; history(): string | undefined } {
    const req: StreamEventsRequest = {
      sessionId: this.sessionId,
      afterSeq: this.processed === undefined ? undefined : seqToWire(this.processed, 'afterSeq'),
      subscriberId: this.opts.subscriberId ?? '',
    };
    const raw = this.ctx.channel.raw;
    const reader = (this.opts.batch ?? true) ? raw.streamEventBatches(req) : raw.streamEvents(req);
    let history: string | undefined;
    reader.once('metadata', (md: Metadata) => {
      const value = md.get(HISTORY_HEADER)[0];
      if (typeof value !== 'string') return;
      history = value;
      // Acknowledgements may go out on this connection, and only on it.
      this.checked = value === this.instanceId ? this.ctx.channel.connection() : undefined;
    });
    const onAbort = () => reader.cancel();
    this.signal.addEventListener('abort', onAbort, { once: true });
    reader.on('close', () => this.signal.removeEventListener('abort', onAbort));
    return { reader, history: () => history };
  }

  /** The daemon serves another history: nothing more is acknowledged, and the loop fails. */
  private cursorLost(before: string, now: string): CursorLostError {
    this.ack?.retire();
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

/** True when the daemon ended the stream only because the token that opened it expired. */
function isAuthExpiry(err: unknown): boolean {
  const e = err as Partial<ServiceError>;
  return e.code === 16 /* UNAUTHENTICATED */ && e.metadata?.get(AUTH_EXPIRED_TRAILER)[0] === 'true';
}

/** A failure of the stream or of a call made for it, as a BridgeError; anything else is a bug and rethrown. */
function toBridgeError(err: unknown, method: string): BridgeError {
  if (err instanceof BridgeError) return err;
  if (err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number') {
    return fromServiceError(err as ServiceError, method);
  }
  if (err instanceof Error && /Channel has been shut down/.test(err.message)) {
    return new UnavailableError('UNAVAILABLE', err.message, { method, cause: err });
  }
  throw err;
}

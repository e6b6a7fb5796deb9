import { type Scope, scope } from '@agent-bridge/scope';
import type { EventStreamOptions } from './event-stream-options.js';
import { seqToWire } from './private/convert.js';
import { EventReader } from './private/event-reader.js';
import type { StreamContext, StreamFinder, StreamPosition } from './private/stream-context.js';
import { StreamClosed, streamEnded } from './private/stream-end.js';
import type { SessionEvent } from './types.js';

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
  /** The stream's scope: ended by `close`, with the client, or by the caller's signal. */
  private readonly lifetime: Scope;
  private used = false;
  /** Undefined until the iteration starts (a fleet's stream: until it found the daemon). */
  private position: StreamPosition | undefined;

  constructor(
    /** The client's daemon, or, from a fleet, how to find the session's daemon. */
    private readonly source: StreamContext | StreamFinder,
    readonly sessionId: string,
    private readonly opts: EventStreamOptions,
  ) {
    if (opts.afterSeq !== undefined) seqToWire(opts.afterSeq, 'afterSeq');
    if (opts.ackEvery !== undefined && !(Number.isInteger(opts.ackEvery) && opts.ackEvery > 0)) {
      throw new TypeError('ackEvery must be a positive integer');
    }
    this.lifetime = scope([source.clientClosed, ...(opts.signal ? [opts.signal] : [])]);
  }

  /** The seq of the last event the loop finished processing; undefined before the first. */
  get processedSeq(): number | undefined {
    return this.position?.processedSeq;
  }

  /**
   * The history the events came from (the daemon's server instance id
   * today); '' before the first connection. Pass it to `ackEvents` when
   * acknowledging by hand.
   */
  get historyId(): string {
    return this.position?.historyId ?? '';
  }

  /** Ends the iteration after the event being processed (if any); what was processed is acknowledged. */
  close(): void {
    this.lifetime.end(new StreamClosed());
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    if (this.used) throw new Error('an EventStream can be iterated only once');
    this.used = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<SessionEvent> {
    try {
      if ('open' in this.source) yield* this.found(this.source);
      else {
        const reader = new EventReader(
          this.source,
          this.sessionId,
          this.opts,
          this.lifetime.signal,
        );
        this.position = reader;
        yield* reader.run();
      }
    } finally {
      // Done either way: the stream lets go of the client's and the caller's signals.
      this.lifetime.end(new StreamClosed());
    }
  }

  /**
   * A fleet's stream: the daemon's own stream once the fleet found it. A
   * failure to find it ends the iteration as a failed connection would; a
   * close or an abort meanwhile, as they would end a connection.
   */
  private async *found(finder: StreamFinder): AsyncGenerator<SessionEvent> {
    const signal = this.lifetime.signal;
    if (streamEnded(signal, finder.clientClosed, this.sessionId)) return;
    let stream: StreamPosition & AsyncIterable<SessionEvent>;
    try {
      stream = await finder.open(signal);
    } catch (err) {
      if (streamEnded(signal, finder.clientClosed, this.sessionId)) return;
      throw err;
    }
    this.position = stream;
    yield* stream;
  }
}

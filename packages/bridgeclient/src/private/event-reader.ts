import type { StreamEventsRequest } from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { type AckContext, Acker } from '../acker.js';
import type { CursorKey } from '../cursor-store.js';
import {
  CursorLostError,
  DeadlineExceededError,
  NotFoundError,
  TlsRefusalError,
  UnavailableError,
} from '../errors.js';
import type { EventStreamOptions } from '../event-stream-options.js';
import { isTerminal, type SessionEvent } from '../types.js';
import { backoffDelay, isTransient, pause } from './backoff.js';
import { seqToWire } from './convert.js';
import { RefusalGrace } from './refusal-grace.js';
import type { StreamContext, StreamPosition } from './stream-context.js';
import { closedQuietly, streamEnded } from './stream-end.js';
import { type Outcome, toBridgeError } from './stream-failure.js';
import { HISTORY_HEADER, isAuthExpiry, messages, type Reader } from './stream-wire.js';

/** How long the Health call that checks the daemon's history may take, per connection. */
const HEALTH_TIMEOUT_MS = 10_000;

/** Fresh-token resumes in a row with no event between them before the stream gives up. */
const MAX_REAUTH_STREAK = 3;

/**
 * The work behind an EventStream that knows its daemon: connections, one
 * after another, each resuming after the last processed event, the
 * daemon's history checked on each, and acknowledgements of what the loop
 * processed. Its EventStream owns the lifetime (`signal`).
 */
export class EventReader implements StreamPosition {
  private processed: number | undefined;
  private history = '';
  private ack: Acker | undefined;
  /** The connection on which the daemon's history was last checked (its stream's header). */
  private checked: number | undefined;

  constructor(
    private readonly ctx: StreamContext,
    private readonly sessionId: string,
    private readonly opts: EventStreamOptions,
    private readonly signal: AbortSignal,
  ) {}

  get processedSeq(): number | undefined {
    return this.processed;
  }

  get historyId(): string {
    return this.history;
  }

  async *run(): AsyncGenerator<SessionEvent> {
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
      await this.ack?.flush(this.signal.aborted && !closedQuietly(this.signal));
    }
  }

  private ended(): boolean {
    return streamEnded(this.signal, this.ctx.clientClosed, this.sessionId);
  }

  /** One connection: (re)learn the daemon's instance, open a stream, deliver until it ends. */
  private async *connect(): AsyncGenerator<SessionEvent, Outcome> {
    let reachable = false;
    let delivered = false;
    let reader: Reader | undefined;
    try {
      await this.checkHistory();
      reachable = true;
      const opened = this.open();
      reader = opened.reader;
      for await (const events of messages(reader, this.opts.batch ?? true)) {
        // Its header came before any event: they must be of the history acked so far.
        const history = opened.history();
        if (history !== undefined && history !== this.history) {
          throw this.cursorLost(this.history, history);
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
        await this.checkHistory().catch((e: unknown) => {
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
   * Learns the daemon's history, and fails with CursorLostError when it
   * is not the one the cursor came from. The first time, also takes the
   * stored cursor and starts acknowledging.
   */
  private async checkHistory(): Promise<void> {
    const timeoutMs = Math.min(HEALTH_TIMEOUT_MS, this.ctx.reconnectMs);
    const health = await this.ctx.client
      .health({ signal: this.signal, timeoutMs })
      .catch((err: unknown) => {
        // No answer in time is a connection that did not come up: retried like one.
        if (!(err instanceof DeadlineExceededError)) throw err;
        throw new UnavailableError(
          'UNAVAILABLE',
          `the daemon at ${this.ctx.client.target} did not answer Health within ${timeoutMs} ms`,
          { method: 'Health', cause: err },
        );
      });
    // A daemon older than history_id began a new history at every start.
    const now = health.historyId || health.serverInstanceId;
    if (this.history !== '') {
      if (now !== this.history) throw this.cursorLost(this.history, now);
      return;
    }
    const key = this.cursorKey();
    const stored = key ? await this.ctx.cursors.load(key) : undefined;
    if (stored && this.opts.afterSeq === undefined && stored.instanceId !== now) {
      throw this.cursorLost(stored.instanceId, now);
    }
    this.history = now;
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
      this.checked = value === this.history ? this.ctx.channel.connection() : undefined;
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
      `the daemon at ${this.ctx.client.target} serves another history (${now}, not ${before}): its session store is new or was wiped, or it keeps sessions in memory and restarted; session ${this.sessionId}, its events and cursors are gone`,
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

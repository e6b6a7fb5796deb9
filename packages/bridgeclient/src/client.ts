import { randomUUID } from 'node:crypto';
import type { BridgeServiceClient } from '@agent-bridge/proto';
import { scope } from '@agent-bridge/scope';
import { type CallOptions as GrpcCallOptions, Metadata, type ServiceError } from '@grpc/grpc-js';
import { MemoryCursorStore } from './cursor-store.js';
import { BridgeError, type CallContext, fromServiceError } from './errors.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';
import type { BridgeClientOptions, CallOptions } from './options.js';
import type { PermissionDecision } from './permissions.js';
import { type Backoff, backoffDelay, backoffFrom, isTransient, pause } from './private/backoff.js';
import { openChannel } from './private/channel.js';
import {
  decisionToWire,
  healthFromWire,
  providerFromWire,
  seqFromWire,
  seqToWire,
  sessionFromWire,
  statusFromWire,
  statusToWire,
} from './private/convert.js';
import type { DaemonChannel } from './private/daemon-channel.js';
import type { Tokens } from './private/token-source.js';
import { runTask, type TaskOptions } from './run-task.js';
import type { TaskReport } from './task-report.js';
import type {
  Health,
  InterruptResult,
  ProviderInfo,
  SentInput,
  SessionInfo,
  SessionPage,
  SessionStatus,
  StartedSession,
} from './types.js';

/** The unary RPCs, by their method name on the generated client. */
type UnaryName =
  | 'startSession'
  | 'stopSession'
  | 'getSession'
  | 'listSessions'
  | 'sendInput'
  | 'interruptTurn'
  | 'respondPermission'
  | 'ackEvents'
  | 'health'
  | 'listProviders';
/** The generated signature (request, metadata, options, callback) of a unary RPC. */
type Signature<M extends UnaryName> = Parameters<BridgeServiceClient[M]>;
type RequestOf<M extends UnaryName> = Signature<M>[0];
type ResponseOf<M extends UnaryName> = Parameters<Signature<M>[3]>[1];
type Invoke = (
  req: unknown,
  md: Metadata,
  opts: Partial<GrpcCallOptions>,
  cb: (err: ServiceError | null, res: unknown) => void,
) => { cancel(): void };

export interface StartSessionRequest {
  /** The provider's id, as ListProviders names it ("claude", "codex", "mock", ...). */
  provider: string;
  /** Absolute path of the repository on the daemon's host, inside its allowed paths. */
  repoPath: string;
  /** A lowercase UUID; generated when not given. Repeating a start with the same id is safe. */
  sessionId?: string;
  /** Provider options from its allowlist, e.g. `{ model: "..." }`. */
  agentOpts?: Record<string, string>;
}

export interface ListSessionsOptions extends CallOptions {
  /** Only sessions in one of these statuses. */
  statuses?: SessionStatus[];
  /** Sessions per page: up to 1000, default 100. */
  pageSize?: number;
  /** `nextPageToken` of the previous page, with the same filter. */
  pageToken?: string;
}

const DEFAULT_CALL_MS = 30_000;
const DEFAULT_RECONNECT_MS = 60_000;

/**
 * A client of one bridge daemon: a method for each RPC, with plain types,
 * a deadline and an AbortSignal per call, tokens minted and renewed on its
 * own, and retries of transient failures where they are safe. See
 * docs/sdk.md.
 */
export class BridgeClient {
  /** The daemon's address, as given. */
  readonly target: string;
  /** The project this client acts for (its tokens' `project_id`). */
  readonly projectId: string;
  private readonly channel: DaemonChannel;
  private readonly tokens: Tokens;
  private readonly backoff: Backoff;
  private readonly callMs: number;
  private readonly reconnectMs: number;
  private readonly cursors;
  /** The client's scope: ended by close(); every stream of the client lives inside it. */
  private readonly closing = scope();

  constructor(options: BridgeClientOptions) {
    const { channel, tokens } = openChannel(options);
    this.channel = channel;
    this.tokens = tokens;
    this.target = options.target;
    this.projectId = options.jwt.projectId;
    this.backoff = backoffFrom(options.retry);
    this.callMs = options.timeouts?.callMs ?? DEFAULT_CALL_MS;
    this.reconnectMs = options.timeouts?.reconnectMs ?? DEFAULT_RECONNECT_MS;
    this.cursors = options.cursorStore ?? new MemoryCursorStore();
  }

  /**
   * Starts an agent session, generating its id when none is given. Safe to
   * retry: the same id and parameters return the same session.
   */
  async startSession(req: StartSessionRequest, opts: CallOptions = {}): Promise<StartedSession> {
    const sessionId = req.sessionId ?? randomUUID();
    const res = await this.unary(
      'startSession',
      {
        projectId: this.projectId,
        sessionId,
        repoPath: req.repoPath,
        provider: req.provider,
        agentOpts: req.agentOpts ?? {},
      },
      opts,
      true,
      { sessionId },
    );
    return {
      sessionId: res.sessionId,
      status: statusFromWire(res.status),
      createdAt: res.createdAt ?? new Date(0),
    };
  }

  /** Stops a session (gracefully unless `force`); stopping a stopped session is not an error. */
  async stopSession(
    sessionId: string,
    opts: CallOptions & { force?: boolean } = {},
  ): Promise<SessionStatus> {
    const res = await this.unary('stopSession', { sessionId, force: opts.force ?? false }, opts);
    return statusFromWire(res.status);
  }

  async getSession(sessionId: string, opts: CallOptions = {}): Promise<SessionInfo> {
    const res = await this.unary('getSession', { sessionId }, opts);
    return sessionFromWire(res);
  }

  /** One page of this project's sessions, newest first. */
  async listSessions(opts: ListSessionsOptions = {}): Promise<SessionPage> {
    const res = await this.unary(
      'listSessions',
      {
        projectId: '',
        statuses: (opts.statuses ?? []).map(statusToWire),
        pageSize: opts.pageSize ?? 0,
        pageToken: opts.pageToken ?? '',
      },
      opts,
    );
    return { sessions: res.sessions.map(sessionFromWire), nextPageToken: res.nextPageToken };
  }

  /** Every session of this project, newest first, page after page. */
  async *sessions(opts: Omit<ListSessionsOptions, 'pageToken'> = {}): AsyncGenerator<SessionInfo> {
    let pageToken = '';
    do {
      const page = await this.listSessions({ ...opts, pageToken });
      yield* page.sessions;
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
  }

  /**
   * Sends one input to the agent. It always goes with an idempotency key
   * (a fresh one unless given), so the retry of a call whose answer was
   * lost never sends the input twice.
   */
  async sendInput(
    sessionId: string,
    text: string,
    opts: CallOptions & { idempotencyKey?: string } = {},
  ): Promise<SentInput> {
    const idempotencyKey = opts.idempotencyKey ?? randomUUID();
    const res = await this.unary('sendInput', { sessionId, text, idempotencyKey }, opts, true, {
      idempotencyKey,
    });
    return { seq: seqFromWire(res.seq), idempotencyKey };
  }

  /**
   * Interrupts the turn the agent is running. Never retried: a retry after
   * a lost answer could reach the turn that came next.
   */
  async interruptTurn(sessionId: string, opts: CallOptions = {}): Promise<InterruptResult> {
    const res = await this.unary('interruptTurn', { sessionId }, opts, false);
    return { interrupted: res.interrupted, turnId: res.turnId };
  }

  /**
   * Answers a permission request (a PERMISSION_REQUESTED event's
   * `requestId`; see `permissionRequest`). Resolves with the seq of the
   * PERMISSION_RESOLVED event that records the answer. The first answer
   * wins: a request already resolved (by another client, its timeout, an
   * interrupt or a stop) fails with FailedPreconditionError, whose message
   * says how. Never retried, for the same reason.
   */
  async respondPermission(
    sessionId: string,
    requestId: string,
    decision: PermissionDecision,
    opts: CallOptions & { reason?: string } = {},
  ): Promise<number> {
    const res = await this.unary(
      'respondPermission',
      { sessionId, requestId, decision: decisionToWire(decision), reason: opts.reason ?? '' },
      opts,
      false,
    );
    return seqFromWire(res.seq);
  }

  /**
   * Records that `subscriberId` has processed everything up to `ackSeq`;
   * returns the stored cursor. `historyId` names the history the events
   * were read from (an EventStream's `historyId`): the daemon then refuses
   * the ack (FailedPreconditionError) if it now serves another one, as
   * after a restart, instead of moving a cursor of the new history.
   */
  async ackEvents(
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    opts: CallOptions & { historyId?: string } = {},
  ): Promise<number> {
    const res = await this.unary(
      'ackEvents',
      {
        sessionId,
        subscriberId,
        ackSeq: seqToWire(ackSeq, 'ackSeq'),
        historyId: opts.historyId ?? '',
      },
      opts,
    );
    return seqFromWire(res.ackSeq);
  }

  async health(opts: CallOptions = {}): Promise<Health> {
    const res = await this.unary('health', {}, opts);
    return healthFromWire(res);
  }

  async listProviders(opts: CallOptions = {}): Promise<ProviderInfo[]> {
    const res = await this.unary('listProviders', {}, opts);
    return res.providers.map(providerFromWire);
  }

  /**
   * A session's events as an async iterable: the stored ones, then live
   * ones as they come, until the session's terminal event. It survives
   * broken connections and never skips an event: see EventStream.
   */
  events(sessionId: string, opts: EventStreamOptions = {}): EventStream {
    return new EventStream(
      {
        client: this,
        channel: this.channel,
        sendAck: (key, ackSeq, historyId, opts) =>
          this.unary(
            'ackEvents',
            {
              sessionId: key.sessionId,
              subscriberId: key.subscriberId,
              ackSeq: seqToWire(ackSeq, 'ackSeq'),
              historyId,
            },
            opts,
            false,
          ).then((res) => seqFromWire(res.ackSeq)),
        cursors: this.cursors,
        backoff: this.backoff,
        reconnectMs: this.reconnectMs,
        clientClosed: this.closing.signal,
        renewToken: () => this.tokens.renew(),
      },
      sessionId,
      opts,
    );
  }

  /**
   * Runs one task: checks the provider can run here (else SKIPPED at once),
   * starts a session, sends `prompt`, reads the session's events until the
   * turn completes (answering permission requests as `permissions` says),
   * stops the session, and reports: status, the final message, tool calls,
   * permissions, usage and cost. See docs/sdk.md#tasks.
   */
  runTask(task: TaskOptions): Promise<TaskReport> {
    return runTask(this, task);
  }

  /**
   * Closes the connection. Event streams end with a CANCELLED BridgeError
   * saying the client was closed; so does every later call. Calls under
   * way are left to finish.
   */
  close(): void {
    this.closing.end();
    this.channel.close();
  }

  /**
   * One RPC: a deadline for all attempts together, cancelled by `signal`,
   * and transient failures retried with backoff when `retry` allows.
   */
  private async unary<M extends UnaryName>(
    method: M,
    req: RequestOf<M>,
    opts: CallOptions,
    retry = true,
    /** Carried by the call's errors (see BridgeError.sessionId and idempotencyKey). */
    context: CallContext = {},
  ): Promise<ResponseOf<M>> {
    const deadline = Date.now() + (opts.timeoutMs ?? this.callMs);
    const rpc = method[0]!.toUpperCase() + method.slice(1);
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      if (this.closing.signal.aborted) {
        throw new BridgeError('CANCELLED', 'the client is closed', { ...context, method: rpc });
      }
      // The channel of this attempt: a stuck one is replaced between attempts.
      const raw = this.channel.raw;
      const invoke = (raw[method] as unknown as Invoke).bind(raw);
      try {
        return (await once(rpc, invoke, req, deadline, opts.signal, context)) as ResponseOf<M>;
      } catch (err) {
        if (!retry || !isTransient(err) || attempt + 1 >= this.backoff.maxAttempts) throw err;
        const wait = Math.max(err.retryAfterMs ?? 0, backoffDelay(this.backoff, attempt));
        if (Date.now() + wait >= deadline) throw err;
        await pause(wait, opts.signal);
      }
    }
  }
}

/** One attempt of a unary call. An abort cancels it and rejects with the signal's reason. */
function once(
  method: string,
  invoke: Invoke,
  req: unknown,
  deadline: number,
  signal: AbortSignal | undefined,
  context: CallContext,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onAbort = () => call.cancel();
    // The token comes from the channel's call credentials, not this metadata.
    const call = invoke(req, new Metadata(), { deadline: new Date(deadline) }, (err, res) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(signal.reason);
      else if (err) reject(fromServiceError(err, method, context));
      else resolve(res);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

import { randomUUID } from 'node:crypto';
import { scope } from '@agent-bridge/scope';
import { type ContextBus, contextBus, type Messages, messages } from './collaboration.js';
import { MemoryCursorStore } from './cursor-store.js';
import { EventStream } from './event-stream.js';
import type { EventStreamOptions } from './event-stream-options.js';
import type { BridgeClientOptions, CallOptions } from './options.js';
import type { PermissionDecision } from './permissions.js';
import { type Backoff, backoffFrom } from './private/backoff.js';
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
import { runTask } from './private/run-task.js';
import type { Tokens } from './private/token-cache.js';
import { type Unary, unaryCalls } from './private/unary-call.js';
import type { TaskOptions } from './run-task.js';
import type { ListSessionsOptions, StartSessionRequest } from './session-requests.js';
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
  private readonly unary: Unary;
  /** The project's context bus, as this client's caller (docs/collaboration.md). */
  readonly context: ContextBus;
  /** Messages to and from this client's caller. */
  readonly messages: Messages;
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
    this.unary = unaryCalls({
      channel,
      backoff: this.backoff,
      callMs: options.timeouts?.callMs ?? DEFAULT_CALL_MS,
      clientClosed: this.closing.signal,
    });
    this.context = contextBus(this.unary);
    this.messages = messages(this.unary);
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
        ...(req.name ? { name: req.name } : {}),
        ...(req.role ? { role: req.role } : {}),
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
}

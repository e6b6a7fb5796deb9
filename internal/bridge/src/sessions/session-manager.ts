import { randomUUID } from 'node:crypto';
import { InputClosedError, type Provider } from '@agent-bridge/providers';
import { ScopeEnded, scope } from '@agent-bridge/scope';
import { type Audit, noAudit } from '../audit.js';
import { type Clock, systemClock, systemTimers, type Timers } from '../clock.js';
import { BridgeError, denied, invalid, notFound, precondition, unavailable } from '../errors.js';
import { type EventCodec, jsonEventCodec } from '../events/event-codec.js';
import { type EventObserver, noEventObserver } from '../events/event-observer.js';
import {
  type BatchLimits,
  type EventStream,
  type StreamRequest,
  Subscriptions,
} from '../events/subscriptions.js';
import { checkLimits } from '../limits/session-limits.js';
import { AllowedPaths } from '../paths/allowed-paths.js';
import { canPin, type PinnedDirectory } from '../paths/pinned-directory.js';
import type { PermissionPolicy } from '../permissions/permission-policy.js';
import { type Redactor, SecretRedactor } from '../redaction/redactor.js';
import type {
  Caller,
  CoreSettings,
  Logger,
  PermissionAnswer,
  SessionCensus,
  SessionCounts,
  SessionSnapshot,
  SessionStatus,
  StartRequest,
} from '../types.js';
import {
  checkPermissionAnswer,
  checkSessionId,
  checkSubscriberId,
  preview,
  refusedOptions,
} from '../validate.js';
import { launchAgent } from './launch-agent.js';
import { type ListFilter, listSessions, type SessionPage } from './list-sessions.js';
import { Session } from './session.js';
import { startSweeper } from './sweeper.js';

export interface SessionManagerDeps {
  settings: CoreSettings;
  providers: ReadonlyMap<string, Provider>;
  logger: Logger;
  clock?: Clock;
  /** Timers for start-up deadlines and the sweeper; a test passes a fake driven by its clock. */
  timers?: Timers;
  redactPatterns?: readonly RegExp[];
  /** Where session lifecycle and permission records go. */
  audit?: Audit;
  /** Counts events stored and delivered (metrics). */
  observer?: EventObserver;
  /** How rings hold events: the daemon passes its wire encoding so each event is encoded once. JSON unless given. */
  codec?: EventCodec;
  /**
   * The identity of the history this manager's sessions, events and
   * cursors belong to. Kept in memory, they begin anew with the process,
   * so it is new each time unless given. Acknowledgements name it.
   */
  historyId?: string;
}

const MAX_IDEMPOTENCY_KEY_BYTES = 128;

/**
 * The core: starts, tracks, feeds, reads and stops sessions under the
 * configured policy. Knows nothing about gRPC or TLS; failures are
 * BridgeErrors with a kind.
 */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly allowed: AllowedPaths;
  private readonly secrets: SecretRedactor;
  /** The daemon's redaction (built-in rules and `logging.redact_patterns`), for messages leaving it. */
  readonly redact: Redactor;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly subscriptions: Subscriptions;
  /**
   * The daemon's scope, ended by shutdown (ScopeEnded "shutdown"): stops the
   * sweeper, refuses new sessions, and every session's scope lives inside it.
   */
  private readonly daemon = scope();
  /** What every event and cursor here belongs to; see SessionManagerDeps.historyId. */
  readonly historyId: string;

  constructor(private readonly deps: SessionManagerDeps) {
    this.historyId = deps.historyId ?? randomUUID();
    this.allowed = new AllowedPaths(deps.settings.allowedPaths);
    if (!canPin()) {
      deps.logger.warn(
        { reason: 'path_pinning_unsupported' },
        'no /proc/self/fd on this platform: StartSession refuses every repo_path, since the agent could not be held to the directory that was checked',
      );
    }
    this.secrets = new SecretRedactor(deps.redactPatterns ?? []);
    this.redact = (text) => this.secrets.redact(text);
    this.clock = deps.clock ?? systemClock;
    this.timers = deps.timers ?? systemTimers;
    this.subscriptions = new Subscriptions(
      this.clock,
      deps.settings.maxSubscribers,
      deps.observer ?? noEventObserver,
    );
    startSweeper(
      {
        sessions: () => this.sessions.values(),
        evict: (s) => this.evict(s),
        settings: deps.settings,
        clock: this.clock,
        timers: this.timers,
        logger: deps.logger,
      },
      this.daemon.signal,
    );
  }

  /** Aborted when the daemon shuts down; a call's scope lives inside it. */
  get lifetime(): AbortSignal {
    return this.daemon.signal;
  }

  get providers(): ReadonlyMap<string, Provider> {
    return this.deps.providers;
  }

  /** How a provider's permission requests are decided (ListProviders shows it). */
  permissionPolicy(providerId: string): PermissionPolicy {
    return this.deps.settings.permissionPolicy(providerId);
  }

  get shuttingDown(): boolean {
    return this.daemon.signal.aborted;
  }

  /** Sessions by state, for the daemon and for `projectId`, with the limits that apply. */
  counts(projectId: string): SessionCounts {
    let active = 0;
    let retained = 0;
    let projectActive = 0;
    for (const s of this.sessions.values()) {
      if (!s.live) retained++;
      else {
        active++;
        if (s.projectId === projectId) projectActive++;
      }
    }
    const { maxGlobal, maxPerProject } = this.deps.settings;
    return { active, retained, limit: maxGlobal, projectActive, projectLimit: maxPerProject };
  }

  /**
   * Sessions grouped by provider and status, with their open readers: what
   * the daemon reports as gauges. One pass over the sessions, made when asked.
   */
  census(): SessionCensus[] {
    const groups = new Map<string, SessionCensus>();
    for (const s of this.sessions.values()) {
      const snap = { provider: s.request.provider, status: s.status };
      const key = `${snap.provider}\u0000${snap.status}`;
      const g = groups.get(key) ?? { ...snap, sessions: 0, subscribers: 0, permissionsWaiting: 0 };
      g.sessions++;
      g.subscribers += s.readerCount;
      g.permissionsWaiting += s.permissions.waiting;
      groups.set(key, g);
    }
    return [...groups.values()];
  }

  async start(caller: Caller, req: StartRequest): Promise<SessionSnapshot> {
    if (this.shuttingDown) throw unavailable('the daemon is shutting down', 'shutting_down');
    checkSessionId(req.sessionId);
    if (req.projectId === '') throw invalid('project_id is required', 'project_id_missing');
    if (req.projectId !== caller.projectId) {
      throw denied(
        `the token is not valid for project ${preview(req.projectId)}`,
        'project_mismatch',
      );
    }
    const existing = this.sessions.get(req.sessionId);
    if (existing) return this.retry(existing, req);
    const provider = this.deps.providers.get(req.provider);
    if (!provider) {
      throw invalid(
        `provider ${preview(req.provider)} is not configured (configured: ${[...this.deps.providers.keys()].join(', ')})`,
        'unknown_provider',
      );
    }
    const refusal = provider.validateOptions(req.agentOpts);
    if (refusal) {
      const message = refusedOptions(refusal, req.agentOpts);
      throw refusal.malformed
        ? invalid(message, 'agent_opt_malformed')
        : denied(message, 'agent_opt_not_allowed');
    }

    const workspace = await this.allowed.open(req.repoPath);
    try {
      return await this.launch(caller, req, provider, workspace);
    } catch (err) {
      // Refused before the launch, or the provider failed: nothing will
      // spawn in it. (A launch that returns has handed it to launchAgent.)
      await workspace.close();
      throw err;
    }
  }

  private async launch(
    caller: Caller,
    req: StartRequest,
    provider: Provider,
    workspace: PinnedDirectory,
  ): Promise<SessionSnapshot> {
    const health = await provider.health();
    if (!health.available) {
      throw precondition(
        `provider "${provider.id}" is unavailable: ${health.error}`,
        'provider_unavailable',
      );
    }

    // Everything from here to the map insert is synchronous, so concurrent
    // starts cannot overshoot the limits or claim the same id twice.
    if (this.shuttingDown) throw unavailable('the daemon is shutting down', 'shutting_down');
    const raced = this.sessions.get(req.sessionId);
    if (raced) return this.retry(raced, req);
    checkLimits(this.sessions.values(), req.projectId, this.deps.settings);
    const request = { ...req, agentOpts: { ...req.agentOpts } };
    const { settings, logger } = this.deps;
    const session = new Session(request, workspace.path, provider, {
      settings,
      secrets: this.secrets,
      clock: this.clock,
      timers: this.timers,
      audit: this.deps.audit ?? noAudit,
      observer: this.deps.observer ?? noEventObserver,
      codec: this.deps.codec ?? jsonEventCodec,
      lifetime: this.daemon.signal,
      startedBy: caller,
    });
    this.sessions.set(req.sessionId, session);
    const startupTimeoutMs = settings.startupTimeoutMs(req.provider);
    session.beginStartup(
      launchAgent(session, { timers: this.timers, logger, startupTimeoutMs, workspace }),
    );
    try {
      await session.started;
    } catch (err) {
      this.sessions.delete(req.sessionId);
      throw err;
    }
    return session.snapshot();
  }

  private async retry(existing: Session, req: StartRequest): Promise<SessionSnapshot> {
    if (!existing.sameRequest(req)) {
      throw new BridgeError(
        'already_exists',
        `session ${req.sessionId} already exists with different parameters`,
        'session_id_in_use',
      );
    }
    await existing.started?.catch(() => undefined);
    if (this.sessions.get(req.sessionId) !== existing) {
      throw precondition(`session ${req.sessionId} could not be started`, 'start_failed');
    }
    return existing.snapshot();
  }

  async stop(caller: Caller, sessionId: string, force: boolean): Promise<SessionStatus> {
    const s = this.find(caller, sessionId);
    if (s.live) {
      (this.deps.audit ?? noAudit)({
        kind: 'session',
        outcome: 'ok',
        reason: force ? 'session_kill_requested' : 'session_stop_requested',
        sessionId,
        projectId: s.projectId,
        ...(caller.identity ? { identity: caller.identity } : {}),
      });
    }
    await s.stop('stop_requested', force);
    return s.status;
  }

  get(caller: Caller, sessionId: string): SessionSnapshot {
    return this.find(caller, sessionId).snapshot();
  }

  list(caller: Caller, filter: ListFilter): SessionPage {
    if (filter.projectId !== '' && filter.projectId !== caller.projectId) {
      throw denied(
        `the token is not valid for project ${preview(filter.projectId)}`,
        'project_mismatch',
      );
    }
    return listSessions(this.sessions.values(), caller.projectId, filter);
  }

  sendInput(caller: Caller, sessionId: string, text: string, idempotencyKey: string): number {
    const s = this.find(caller, sessionId);
    if (Buffer.byteLength(idempotencyKey, 'utf8') > MAX_IDEMPOTENCY_KEY_BYTES) {
      throw invalid(
        `idempotency_key must be at most ${MAX_IDEMPOTENCY_KEY_BYTES} bytes`,
        'idempotency_key_too_long',
      );
    }
    const seen = s.inputKeys.seqOf(idempotencyKey);
    if (seen !== undefined) return seen;
    if (text.length === 0) throw invalid('text must not be empty', 'input_empty');
    const max = this.deps.settings.maxInputBytes;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > max) {
      throw invalid(`text is ${bytes} bytes of UTF-8; the limit is ${max}`, 'input_too_large');
    }
    const agent = s.runningAgent();
    // The agent writes first, so a closed input leaves no trace, and calls
    // back before the turn is announced, so the input's seq comes first.
    let seq = 0;
    try {
      agent.send(text, () => {
        seq = s.record({ type: 'INPUT_RECEIVED', stream: 'system', text }).seq;
      });
    } catch (err) {
      if (err instanceof InputClosedError)
        throw precondition(`session ${sessionId}: ${err.message}`, 'input_closed');
      throw err;
    }
    s.inputKeys.remember(idempotencyKey, seq);
    return seq;
  }

  async interrupt(
    caller: Caller,
    sessionId: string,
  ): Promise<{ interrupted: boolean; turnId: string }> {
    const s = this.find(caller, sessionId);
    const agent = s.runningAgent();
    if (!s.provider.capabilities.interrupt || !agent.interrupt) {
      throw precondition(
        `provider "${s.provider.id}" cannot interrupt a turn`,
        'interrupt_unsupported',
      );
    }
    // The turn's scope ends with the cancel: what it waits on is refused.
    return agent.interrupt();
  }

  /** A client's answer to a permission request; returns the seq of PERMISSION_RESOLVED. */
  respondPermission(caller: Caller, answer: PermissionAnswer): number {
    const s = this.find(caller, answer.sessionId);
    checkPermissionAnswer(answer);
    return s.permissions.respond(answer.requestId, answer.decision, answer.reason, caller);
  }

  /** Opens a reader; see Subscriptions.open. */
  openStream(
    caller: Caller,
    req: StreamRequest,
    signal: AbortSignal,
    batch: BatchLimits,
  ): EventStream {
    checkSubscriberId(req.subscriberId, false);
    return this.subscriptions.open(this.find(caller, req.sessionId), req, signal, batch);
  }

  /**
   * Moves a subscriber's cursor forward. `historyId` (optional, '' for
   * none) names the history the acknowledged events were read from: an ack
   * of another history (a restart came between the read and the ack)
   * must not move a cursor of this one, whose seqs mean other events.
   */
  ack(
    caller: Caller,
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    historyId = '',
  ): number {
    checkSubscriberId(subscriberId, true);
    const session = this.find(caller, sessionId);
    if (historyId !== '' && historyId !== this.historyId) {
      throw precondition(
        `history_id ${preview(historyId)} is not this daemon's history ${this.historyId}: the acknowledged events were read from another run of the daemon (or another daemon), so no cursor was moved`,
        'ack_of_other_history',
      );
    }
    return this.subscriptions.ack(session, subscriberId, ackSeq);
  }

  /** Refuses new work, stops every session (graceful, bounded by the grace period) and waits. */
  async shutdown(): Promise<void> {
    this.daemon.end(new ScopeEnded('shutdown'));
    await Promise.all(
      [...this.sessions.values()].map((s) => s.stop('shutdown', false).catch(() => undefined)),
    );
  }

  /** Forgets an ended session (past its retention): its events and cursors go with it. */
  private evict(session: Session): void {
    if (session.live)
      throw new Error(`session ${session.id} is live: only an ended one is evicted`);
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }

  /** Looks a session up for `caller`; another project's session is "not found". */
  private find(caller: Caller, sessionId: string): Session {
    checkSessionId(sessionId);
    const s = this.sessions.get(sessionId);
    if (!s) throw notFound(sessionId);
    // The caller cannot tell this from a missing session; the audit record can.
    if (s.projectId !== caller.projectId) throw notFound(sessionId, 'session_of_other_project');
    return s;
  }
}

import type { Provider } from '@agent-bridge/providers';
import { ScopeEnded, scope } from '@agent-bridge/scope';
import { noAudit } from '../audit.js';
import { type Clock, systemClock, systemTimers, type Timers } from '../clock.js';
import type { Collaboration } from '../collaboration/collaboration.js';
import { precondition, unavailable } from '../errors.js';
import { jsonEventCodec } from '../events/event-codec.js';
import { noEventObserver } from '../events/event-observer.js';
import {
  type BatchLimits,
  type EventStream,
  type StreamRequest,
  Subscriptions,
} from '../events/subscriptions.js';
import { checkLimits } from '../limits/session-limits.js';
import { AllowedPaths } from '../paths/allowed-paths.js';
import { type PinnedDirectory, warnIfUnpinnable } from '../paths/pinned-directory.js';
import type { PermissionPolicy } from '../permissions/permission-policy.js';
import { type Redactor, SecretRedactor } from '../redaction/redactor.js';
import { memoryStore } from '../store/memory-store.js';
import type { SessionStore } from '../store/session-store.js';
import type {
  Caller,
  PermissionAnswer,
  SessionCensus,
  SessionCounts,
  SessionSnapshot,
  SessionStatus,
  StartRequest,
} from '../types.js';
import { checkPermissionAnswer, checkSubscriberId } from '../validate.js';
import { checkStart, startingProvider } from './check-start.js';
import { checkAckHistory, committed, keptCursor } from './durable-answers.js';
import { endForShutdown } from './end-for-shutdown.js';
import { launchAgent } from './launch-agent.js';
import { type Listable, type ListFilter, listSessions, type SessionPage } from './list-sessions.js';
import { restoreSession } from './restore-session.js';
import { resumeAgent } from './resume-agent.js';
import { retryStart } from './same-start.js';
import { sendInput } from './send-input.js';
import { Session, type SessionDeps } from './session.js';
import { auditStopRequest } from './session-audit.js';
import { census, countSessions } from './session-census.js';
import { collaborationOf } from './session-directory.js';
import type { SessionManagerDeps } from './session-manager-deps.js';
import { SessionTable } from './session-table.js';
import { startSweeper } from './sweeper.js';

/**
 * The core: starts, tracks, feeds, reads and stops sessions under the
 * configured policy. Knows nothing about gRPC or TLS; failures are
 * BridgeErrors with a kind.
 */
export class SessionManager {
  private readonly sessions: SessionTable;
  private readonly allowed: AllowedPaths;
  private readonly secrets: SecretRedactor;
  /** The daemon's redaction (built-in rules and `logging.redact_patterns`), for messages leaving it. */
  readonly redact: Redactor;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly subscriptions: Subscriptions;
  /** The daemon's scope, ended by shutdown: the sweeper's, and every session's lives inside it. */
  private readonly daemon = scope();
  /** What every event and cursor here belongs to: the store's history. */
  readonly historyId: string;
  private readonly store: SessionStore;
  /** The projects' context bus and messages (docs/collaboration.md). */
  readonly collaboration: Collaboration;

  constructor(private readonly deps: SessionManagerDeps) {
    this.store = deps.store ?? memoryStore(deps.historyId);
    this.historyId = this.store.historyId;
    this.sessions = new SessionTable((id) => {
      this.store.forgetSession(id);
      this.collaboration.capabilities.revoke(id);
    });
    this.allowed = new AllowedPaths(deps.settings.allowedPaths);
    warnIfUnpinnable(deps.logger);
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
        evict: (s) => this.sessions.evict(s),
        settings: deps.settings,
        clock: this.clock,
        timers: this.timers,
        logger: deps.logger,
      },
      this.daemon.signal,
    );
    this.collaboration = collaborationOf(this.sessions, this.store, this.clock, this.timers, deps);
    const resume = { allowed: this.allowed, timers: this.timers, tools: this.collaboration };
    for (const stored of this.store.storedSessions()) {
      const live = restoreSession(stored, this.sessionDeps(), this.sessions, deps.providers);
      if (live) resumeAgent(live, { ...resume, ...deps });
    }
  }

  /** What every session here is built with. */
  private sessionDeps(): SessionDeps {
    return {
      settings: this.deps.settings,
      secrets: this.secrets,
      clock: this.clock,
      timers: this.timers,
      audit: this.deps.audit ?? noAudit,
      observer: this.deps.observer ?? noEventObserver,
      codec: this.deps.codec ?? jsonEventCodec,
      store: this.store,
      lifetime: this.daemon.signal,
    };
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
    return countSessions(this.sessions.values(), projectId, this.deps.settings);
  }

  /** Sessions by provider and status, with readers and waiting requests (gauges). */
  census(): SessionCensus[] {
    return census(this.sessions.values());
  }

  async start(caller: Caller, req: StartRequest): Promise<SessionSnapshot> {
    if (this.shuttingDown) throw unavailable('the daemon is shutting down', 'shutting_down');
    checkStart(caller, req);
    const existing = this.sessions.get(req.sessionId);
    if (existing) return retryStart(existing, req, this.sessions);
    const provider = startingProvider(req, this.deps.providers);

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
    if (raced) return retryStart(raced, req, this.sessions);
    checkLimits(this.sessions.values(), req, this.deps.settings, this.store);
    const request = { ...req, agentOpts: { ...req.agentOpts } };
    const { settings, logger } = this.deps;
    const session = new Session(request, workspace.path, provider, {
      ...this.sessionDeps(),
      startedBy: caller,
    });
    this.sessions.add(session);
    const startupTimeoutMs = settings.startupTimeoutMs(req.provider);
    const tools = this.collaboration;
    session.startup.begin(
      launchAgent(session, { timers: this.timers, logger, startupTimeoutMs, workspace, tools }),
    );
    try {
      await session.startup.started;
    } catch (err) {
      this.sessions.remove(session);
      throw err;
    }
    await committed(session, session.log.lastSeq); // last_seq counts what startup printed
    return session.snapshot();
  }

  async stop(caller: Caller, sessionId: string, force: boolean): Promise<SessionStatus> {
    const s = this.sessions.find(caller, sessionId);
    if (s.live) auditStopRequest(this.deps.audit ?? noAudit, s, caller, force);
    await s.stop('stop_requested', force);
    await committed(s, s.log.lastSeq); // a reader told STOPPED finds SESSION_STOPPED
    return s.status;
  }

  get(caller: Caller, sessionId: string): SessionSnapshot {
    return this.sessions.find(caller, sessionId).snapshot();
  }

  /** A page of the caller's sessions; `lost` adds sessions of the fleet whose daemon is gone. */
  list(caller: Caller, filter: ListFilter, lost: Iterable<Listable> = []): SessionPage {
    return listSessions([...this.sessions.values(), ...lost], caller, filter);
  }

  /** Gives input to the agent; resolves with the seq of its INPUT_RECEIVED once that is committed. */
  async sendInput(
    caller: Caller,
    sessionId: string,
    text: string,
    idempotencyKey: string,
  ): Promise<number> {
    const s = this.sessions.find(caller, sessionId);
    return committed(s, sendInput(s, text, idempotencyKey, this.deps.settings.maxInputBytes));
  }

  async interrupt(
    caller: Caller,
    sessionId: string,
  ): Promise<{ interrupted: boolean; turnId: string }> {
    const s = this.sessions.find(caller, sessionId);
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

  /** A client's answer to a permission request; resolves with the seq of PERMISSION_RESOLVED once committed. */
  async respondPermission(caller: Caller, answer: PermissionAnswer): Promise<number> {
    const s = this.sessions.find(caller, answer.sessionId);
    checkPermissionAnswer(answer);
    return committed(
      s,
      s.permissions.respond(answer.requestId, answer.decision, answer.reason, caller),
    );
  }

  /** Opens a reader; see Subscriptions.open. */
  openStream(
    caller: Caller,
    req: StreamRequest,
    signal: AbortSignal,
    batch: BatchLimits,
  ): EventStream {
    checkSubscriberId(req.subscriberId, false);
    return this.subscriptions.open(this.sessions.find(caller, req.sessionId), req, signal, batch);
  }

  /** Moves a subscriber's cursor forward; `historyId` as `checkAckHistory` takes it. */
  async ack(
    caller: Caller,
    sessionId: string,
    subscriberId: string,
    ackSeq: number,
    historyId = '',
  ): Promise<number> {
    checkSubscriberId(subscriberId, true);
    const session = this.sessions.find(caller, sessionId);
    checkAckHistory(historyId, this.historyId);
    const cursor = { subscriberId, ackSeq: 0, touchedAt: this.clock.now() };
    cursor.ackSeq = this.subscriptions.ack(session, subscriberId, ackSeq);
    return keptCursor(this.store, session.id, cursor);
  }

  /** Refuses new work, ends every session's agent (endForShutdown) and waits. */
  async shutdown(): Promise<void> {
    this.daemon.end(new ScopeEnded('shutdown'));
    await endForShutdown(this.sessions.values(), this.store, this.deps.settings);
  }
}

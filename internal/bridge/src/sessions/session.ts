import type { AgentEvent, AgentHandle, ExitInfo, Provider } from '@agent-bridge/providers';
import { type Scope, ScopeEnded, scope } from '@agent-bridge/scope';
import type { Timers } from '../clock.js';
import { precondition } from '../errors.js';
import { CursorStore } from '../events/cursors.js';
import type { BridgeEvent } from '../events/event.js';
import type { EventRing } from '../events/event-ring.js';
import { type PermissionGate, permissionGate } from '../permissions/permission-gate.js';
import type { StoredSession } from '../store/session-store.js';
import type { SessionFacts, SessionSnapshot, SessionStatus, StartRequest } from '../types.js';
import { isLiveStatus } from '../types.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { trackLiveFacts } from './live-facts.js';
import { agentEnd, type StopReason, startedEvent } from './session-ending.js';
import { SessionEvents, type SessionEventsDeps, type SessionLog } from './session-events.js';
import { SessionReaders } from './session-readers.js';
import { snapshotOf } from './session-snapshot.js';
import { SessionStartup } from './session-startup.js';

export type { StopReason } from './session-ending.js';

/** What a session is built with, besides what it runs. */
export interface SessionDeps extends SessionEventsDeps {
  /** What a store gave back of it at the daemon's start: it is restored, not started. */
  restored?: StoredSession | undefined;
  /** Permission request timeouts. */
  timers: Timers;
  /** The daemon's scope: the session's lives inside it. */
  lifetime: AbortSignal;
}

/**
 * One supervised agent session: its state, its event ring and its cursors.
 * Its status changes only through its own methods, so a session never ends
 * without the terminal event that tells its readers, and never ends twice.
 */
export class Session {
  readonly cursors: CursorStore;
  readonly inputKeys = new IdempotencyKeys();
  /** The agent's permission requests and their answers. */
  readonly permissions: PermissionGate;
  readonly createdAt: number;
  /** Who reads it now and when it was last active. */
  readonly readers: SessionReaders;
  private state: SessionStatus = 'STARTING';
  private agent: AgentHandle | undefined;
  /** What its snapshot reports of the agent's process and the session's end. */
  private readonly facts: SessionFacts = { pid: 0, error: '', exitSignal: '' };
  private stopReason: StopReason | undefined;
  /** Set when the store failed: the session's end is then that failure. */
  private storeError: Error | undefined;
  private stopping: Promise<void> | undefined;
  /** Its agent ended by a daemon going, the session kept live for the next start to resume. */
  private suspended = false;
  /** The session's scope, inside the daemon's; only the session ends it. */
  private readonly scope: Scope;
  /** Its start-up: what retries and stops wait on, and what a stop during it ends. */
  readonly startup = new SessionStartup();
  private readonly events: SessionEvents;
  private terminalRecorded: () => void = () => undefined;
  /** Settles once the terminal event is recorded. */
  private readonly terminal = new Promise<void>((resolve) => {
    this.terminalRecorded = resolve;
  });

  constructor(
    readonly request: StartRequest,
    readonly repoPath: string,
    readonly provider: Provider,
    private readonly deps: SessionDeps,
  ) {
    const { settings, restored } = deps;
    const ended = restored && !isLiveStatus(restored.record.status);
    this.events = new SessionEvents(request, deps, (err) => this.storeFailed(err), restored);
    const { maxSubscribers, subscriberTtlMs } = settings;
    this.cursors = new CursorStore(maxSubscribers, subscriberTtlMs, restored?.cursors);
    this.scope = scope(deps.lifetime);
    this.permissions = permissionGate(request, deps, (ev) => this.record(ev).seq);
    this.createdAt = restored?.record.createdAt ?? this.deps.clock.now();
    this.readers = new SessionReaders(this.createdAt, () => this.events.lastStoredAt);
    if (!restored) this.save();
    else {
      this.state = restored.record.status;
      Object.assign(this.facts, restored.record.facts);
      for (const [key, seq] of this.facts.inputKeys ?? []) this.inputKeys.remember(key, seq);
      // An ended session's lifetime is over: nothing of it waits on the daemon's.
      if (ended) this.scope.end(new ScopeEnded('exit'));
    }
  }

  get ring(): EventRing {
    return this.events.ring;
  }

  /** Its events as the store has them: the newest seq, commits, the agent's output gate. */
  get log(): SessionLog {
    return this.events;
  }

  get id(): string {
    return this.request.sessionId;
  }

  /**
   * Aborted when the session is stopped ("stop", "shutdown") or its agent
   * is gone ("exit"), the cause on it (ScopeEnded). Its turns, and what they
   * wait on, live inside it.
   */
  get lifetime(): AbortSignal {
    return this.scope.signal;
  }

  get projectId(): string {
    return this.request.projectId;
  }

  get status(): SessionStatus {
    return this.state;
  }

  get live(): boolean {
    return isLiveStatus(this.state);
  }

  get ended(): boolean {
    return !this.live;
  }

  /**
   * Stores an agent's event, redacted first (SessionEvents): nothing
   * unredacted ever enters the ring.
   */
  append(ev: AgentEvent): void {
    this.events.append(ev);
    if (trackLiveFacts(this.facts, ev)) this.save();
  }

  /** Stores an event of the daemon's own, never held back, and returns it as stored. */
  record(ev: AgentEvent): BridgeEvent {
    const stored = this.events.record(ev);
    if (trackLiveFacts(this.facts, ev)) this.save();
    return stored;
  }

  /** Remembers an accepted input's key, in the record too: a retry after a restart gets its seq. */
  acceptedInput(key: string, seq: number): void {
    if (!key) return;
    this.inputKeys.remember(key, seq);
    this.facts.inputKeys = this.inputKeys.latest();
    this.save();
  }

  /** What the session's record keeps of it (a restart reads its live facts). */
  get kept(): Readonly<SessionFacts> {
    return this.facts;
  }

  /** Restored live, its agent to be taken up again: it starts over (launchAgent follows). */
  resuming(): void {
    this.state = 'STARTING';
    this.save();
  }

  /** The agent, for input and interrupts; refused unless the session is running. */
  runningAgent(): AgentHandle {
    if (this.state !== 'RUNNING' || !this.agent) {
      throw precondition(
        `session ${this.id} is ${this.state.toLowerCase()}, not running`,
        'session_not_running',
      );
    }
    return this.agent;
  }

  /** The process exists: SESSION_STARTED, before any of its output (a resumed one: SESSION_RESUMED). */
  markSpawned(pid: number, resumed = false): void {
    // A spawn reported after start-up was abandoned would land past the terminal event.
    if (this.ended) return;
    this.facts.pid = pid;
    if (!resumed) this.append(startedEvent(this.request, pid, this.repoPath));
  }

  /** Start-up finished: the agent takes input, unless a stop was requested meanwhile. */
  markRunning(agent: AgentHandle): void {
    this.agent = agent;
    if (this.state !== 'STARTING') return;
    this.state = 'RUNNING';
    this.facts.resumePoint = agent.resumePoint;
    this.save();
  }

  /**
   * Stops the agent and resolves once the terminal event is recorded. The
   * first reason is the one reported; a second graceful request joins the
   * first, a forced one escalates it.
   */
  stop(reason: StopReason, force: boolean): Promise<void> {
    if (this.ended) return Promise.resolve();
    if (this.stopping && !force) return this.stopping;
    this.stopReason ??= reason;
    if (this.state === 'STARTING') this.startup.abandon(this.stopReason);
    // The agent is going: nothing it asks now waits for an answer.
    this.scope.end(new ScopeEnded(this.stopReason === 'shutdown' ? 'shutdown' : 'stop'));
    this.state = 'STOPPING';
    this.save();
    this.stopping = this.stopAgent(force);
    return this.stopping;
  }

  /**
   * Ends the agent as the daemon goes, the session left live in the store (no terminal
   * event) for the next start to resume on its conversation. One not running is stopped.
   */
  suspend(): Promise<void> {
    const agent = this.agent;
    if (this.state !== 'RUNNING' || !agent || this.stopping) return this.stop('shutdown', false);
    this.suspended = true;
    this.scope.end(new ScopeEnded('shutdown'));
    this.stopping = agent
      .stop({
        force: false,
        gracePeriodMs: this.deps.settings.stopGracePeriodMs,
        keepConversation: true,
      })
      .then(() => {});
    return this.stopping;
  }

  private async stopAgent(force: boolean): Promise<void> {
    // A stop during start-up waits for the start-up to end (it was told to
    // give up), then stops the agent if one came up all the same.
    await this.startup.settled();
    const agent = this.agent;
    if (!agent) return;
    await agent.stop({ force, gracePeriodMs: this.deps.settings.stopGracePeriodMs });
    // The exit handler attached at launch records the terminal event: a
    // stop is over once it has.
    await this.terminal;
  }

  /**
   * Records the end of the process: status, exit details and the terminal
   * event (a failure carries the end of the stored stderr, `stderr_tail`).
   */
  finish(exit: ExitInfo): void {
    if (this.ended) return;
    this.scope.end(new ScopeEnded('exit'));
    this.events.flush();
    if (this.suspended) return; // live in the store: the next start resumes it
    this.facts.exitCode = exit.exitCode ?? undefined;
    this.facts.exitSignal = exit.signal ?? '';
    this.facts.endedAt = this.deps.clock.now();
    const end = agentEnd(this.stopReason, exit, this.events.stderrTail, this.storeError);
    if (end.failed) {
      this.fail(end.error, end.data);
      return;
    }
    this.state = 'STOPPED';
    const { text, data } = end;
    this.append({ type: 'SESSION_STOPPED', stream: 'system', text, done: true, data });
    this.save();
    this.terminalRecorded();
  }

  /** The end of its stderr as stored (redacted), its output so far flushed first. */
  stderrTail(): string {
    this.events.flush();
    return this.events.stderrTail;
  }

  /** The store keeps none of its events any more: it ends failed, `store_failed`, told from memory. */
  private storeFailed(error: Error): void {
    if (this.ended) return;
    this.storeError = error;
    void this.stop('store_failed', false);
  }

  /** Marks the session failed with a terminal event. */
  fail(error: string, data: Record<string, unknown>): void {
    if (this.ended) return;
    this.scope.end(new ScopeEnded('exit'));
    this.state = 'FAILED';
    this.facts.error = error;
    this.facts.endedAt ??= this.deps.clock.now();
    this.append({ type: 'SESSION_FAILED', stream: 'system', text: error, done: true, error, data });
    this.save();
    this.terminalRecorded();
  }

  snapshot(): SessionSnapshot {
    return snapshotOf(this, this.facts);
  }

  /** Keeps what the session is now, committed with its events of the same turn. */
  private save(): void {
    const { request, repoPath, state: status, createdAt } = this;
    this.deps.store.saveSession({ request, repoPath, status, createdAt, facts: { ...this.facts } });
  }
}

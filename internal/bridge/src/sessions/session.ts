import type { AgentEvent, AgentHandle, ExitInfo, Provider } from '@agent-bridge/providers';
import { type Scope, ScopeEnded, scope } from '@agent-bridge/scope';
import type { Audit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import { precondition } from '../errors.js';
import { CursorStore } from '../events/cursors.js';
import type { BridgeEvent } from '../events/event.js';
import type { EventCodec } from '../events/event-codec.js';
import type { EventObserver } from '../events/event-observer.js';
import { EventRing } from '../events/event-ring.js';
import { PermissionGate } from '../permissions/permission-gate.js';
import { EventRedactor } from '../redaction/event-redactor.js';
import type { SecretRedactor } from '../redaction/redactor.js';
import type {
  Caller,
  CoreSettings,
  SessionSnapshot,
  SessionStatus,
  StartRequest,
} from '../types.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { auditEvent } from './session-audit.js';

export type StopReason = 'stop_requested' | 'idle_timeout' | 'shutdown';

/** What a session is built with, besides what it runs. */
export interface SessionDeps {
  settings: CoreSettings;
  secrets: SecretRedactor;
  clock: Clock;
  /** Permission request timeouts. */
  timers: Timers;
  audit: Audit;
  observer: EventObserver;
  codec: EventCodec;
  /** The daemon's scope: the session's lives inside it. */
  lifetime: AbortSignal;
  /** Who started the session, named in its audit records. */
  startedBy?: Caller | undefined;
}

/** Characters of stored (redacted) stderr kept for the failure event's `stderr_tail`. */
const STDERR_TAIL_CHARS = 4096;

/** Why a start-up was abandoned: the session was stopped before its agent came up. */
class StoppedDuringStartup extends Error {
  constructor(readonly reason: StopReason) {
    super(`the session was stopped during start-up (${reason})`);
    this.name = 'StoppedDuringStartup';
  }
}

/**
 * One supervised agent session: its state, its event ring and its cursors.
 * Its status changes only through its own methods, so a session never ends
 * without the terminal event that tells its readers, and never ends twice.
 */
export class Session {
  readonly ring: EventRing;
  readonly cursors: CursorStore;
  readonly inputKeys = new IdempotencyKeys();
  /** The agent's permission requests and their answers. */
  readonly permissions: PermissionGate;
  readonly createdAt: number;
  /** Settles when start-up has finished (either way); identical retries and stops wait on it. */
  private startedPromise: Promise<void> | undefined;
  private readers = 0;
  private lastActive: number;
  private state: SessionStatus = 'STARTING';
  private agent: AgentHandle | undefined;
  private pid = 0;
  private endedAt: number | undefined;
  private error = '';
  private exitCode: number | undefined;
  private exitSignal = '';
  private stopReason: StopReason | undefined;
  private stopping: Promise<void> | undefined;
  private readonly stopGracePeriodMs: number;
  /** The session's scope, inside the daemon's; only the session ends it. */
  private readonly scope: Scope;
  /**
   * Ended (StoppedDuringStartup) by a stop while starting, and by nothing
   * else: the provider may watch it for as long as its start-up runs.
   */
  private readonly startup: Scope;
  private readonly redaction: EventRedactor;
  /** Settles once the terminal event is recorded. */
  private readonly terminal: Promise<void>;
  private terminalRecorded: () => void = () => undefined;
  /** The end of the session's stderr as stored, so already redacted. */
  private stderrTail = '';

  private readonly clock: Clock;
  private readonly audit: Audit;
  private readonly observer: EventObserver;
  private readonly startedBy: Caller | undefined;

  constructor(
    readonly request: StartRequest,
    readonly repoPath: string,
    readonly provider: Provider,
    deps: SessionDeps,
  ) {
    const { settings, codec } = deps;
    this.clock = deps.clock;
    this.audit = deps.audit;
    this.observer = deps.observer;
    this.startedBy = deps.startedBy;
    this.ring = new EventRing(settings.eventBufferSize, settings.eventBufferBytes, codec, {
      sessionId: request.sessionId,
      projectId: request.projectId,
      provider: request.provider,
    });
    this.cursors = new CursorStore(settings.maxSubscribers, settings.subscriberTtlMs);
    this.stopGracePeriodMs = settings.stopGracePeriodMs;
    this.scope = scope(deps.lifetime);
    this.startup = scope();
    this.terminal = new Promise((resolve) => {
      this.terminalRecorded = resolve;
    });
    this.redaction = new EventRedactor(deps.secrets);
    this.permissions = new PermissionGate({
      policy: settings.permissionPolicy(request.provider),
      clock: deps.clock,
      timers: deps.timers,
      record: (ev) => this.record(ev).seq,
      audit: deps.audit,
      sessionId: request.sessionId,
      projectId: request.projectId,
      startedBy: deps.startedBy,
    });
    this.createdAt = this.clock.now();
    this.lastActive = this.createdAt;
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

  /** Settles when start-up has finished (either way); undefined before it began. */
  get started(): Promise<void> | undefined {
    return this.startedPromise;
  }

  /** Start-up has begun: identical retries and stops wait on `startup`. Once only. */
  beginStartup(startup: Promise<void>): void {
    if (this.startedPromise) throw new Error(`session ${this.id} was already started`);
    this.startedPromise = startup;
  }

  /** Readers attached now (StreamEvents and StreamEventBatches calls). */
  get readerCount(): number {
    return this.readers;
  }

  /** When the session last stored an event or was read: what its idle timeout counts from. */
  get lastActivity(): number {
    return this.lastActive;
  }

  /** A reader attached at `now`. */
  readerAttached(now: number): void {
    this.readers++;
    this.lastActive = now;
  }

  /** A reader went away. */
  readerDetached(): void {
    this.readers--;
  }

  /** Something read the session at `now`: it is not idle. */
  touched(now: number): void {
    this.lastActive = now;
  }

  get projectId(): string {
    return this.request.projectId;
  }

  get status(): SessionStatus {
    return this.state;
  }

  /** When the terminal event was recorded; undefined while live. */
  get stoppedAt(): number | undefined {
    return this.endedAt;
  }

  get live(): boolean {
    return this.state === 'STARTING' || this.state === 'RUNNING' || this.state === 'STOPPING';
  }

  get ended(): boolean {
    return !this.live;
  }

  /** True when `req` asks for exactly this session. */
  sameRequest(req: StartRequest): boolean {
    const a = this.request;
    if (
      a.projectId !== req.projectId ||
      a.provider !== req.provider ||
      a.repoPath !== req.repoPath
    ) {
      return false;
    }
    const ka = Object.keys(a.agentOpts).sort();
    const kb = Object.keys(req.agentOpts).sort();
    return (
      ka.length === kb.length &&
      ka.every((k, i) => k === kb[i] && a.agentOpts[k] === req.agentOpts[k])
    );
  }

  /**
   * Stores an event with the next seq, redacted first (text, error and
   * data; output lines and streamed messages per stream, see
   * EventRedactor): nothing unredacted ever enters the ring. A piece of a
   * streamed message may wait, stored with a later one; text held back
   * before this event is stored first.
   */
  append(ev: AgentEvent): void {
    for (const out of this.redaction.events(ev)) this.store(out);
  }

  /**
   * Stores an event of the daemon's own (an input, a permission request or
   * resolution), which is never held back, and returns it as stored.
   */
  record(ev: AgentEvent): BridgeEvent {
    const out = this.redaction.events(ev);
    let stored: BridgeEvent | undefined;
    for (const e of out) stored = this.store(e);
    if (!stored || out.at(-1)?.type !== ev.type) {
      throw new Error(`a ${ev.type} event was held back: only streamed messages may be`);
    }
    return stored;
  }

  private store(ev: AgentEvent): BridgeEvent {
    const stored = this.eventAt(this.ring.lastSeq + 1, ev);
    this.lastActive = stored.timestamp;
    this.observer.stored(this.request.provider, stored, this.ring.push(stored));
    if (stored.type === 'STDERR') this.keepStderr(stored.text, stored.data?.continued === true);
    auditEvent(this.audit, stored, this.startedBy?.identity);
    return stored;
  }

  private keepStderr(text: string, continued: boolean): void {
    const tail = this.stderrTail + text + (continued ? '' : '\n');
    if (tail.length <= STDERR_TAIL_CHARS) {
      this.stderrTail = tail;
      return;
    }
    // Start at a line so the tail never opens with half of a "[REDACTED]".
    const cut = tail.slice(-STDERR_TAIL_CHARS);
    const nl = cut.indexOf('\n');
    this.stderrTail = nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut;
  }

  /** An event of this session with `seq`, stamped now. Only `append` stores it. */
  eventAt(seq: number, ev: AgentEvent): BridgeEvent {
    return {
      seq,
      timestamp: this.clock.now(),
      sessionId: this.id,
      projectId: this.projectId,
      provider: this.request.provider,
      type: ev.type,
      stream: ev.stream,
      text: ev.text,
      done: ev.done ?? false,
      error: ev.error ?? '',
      turnId: ev.turnId ?? '',
      data: ev.data,
    };
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

  /**
   * Aborted (with StoppedDuringStartup) when the session is stopped while it
   * starts, so a start-up still waiting (for its turn in a shared home, for
   * a slow handshake) ends at once instead of bringing up an agent only to
   * stop it.
   */
  get startupAbandoned(): AbortSignal {
    return this.startup.signal;
  }

  /** The process exists: recorded before any of its output. */
  markSpawned(pid: number): void {
    // A spawn reported after start-up was abandoned would land past the terminal event.
    if (this.ended) return;
    this.pid = pid;
    this.append({
      type: 'SESSION_STARTED',
      stream: 'system',
      text: `${this.request.provider} started (pid ${pid}) in ${this.repoPath}`,
      data: { pid, repo_path: this.repoPath },
    });
  }

  /** Start-up finished: the agent takes input, unless a stop was requested meanwhile. */
  markRunning(agent: AgentHandle): void {
    this.agent = agent;
    if (this.state === 'STARTING') this.state = 'RUNNING';
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
    if (this.state === 'STARTING') this.startup.end(new StoppedDuringStartup(this.stopReason));
    // The agent is going: nothing it asks now waits for an answer.
    this.scope.end(new ScopeEnded(this.stopReason === 'shutdown' ? 'shutdown' : 'stop'));
    this.state = 'STOPPING';
    this.stopping = this.stopAgent(force);
    return this.stopping;
  }

  private async stopAgent(force: boolean): Promise<void> {
    // A stop during start-up waits for the start-up to end (it was told to
    // give up), then stops the agent if one came up all the same.
    await this.startedPromise?.catch(() => undefined);
    const agent = this.agent;
    if (!agent) return;
    await agent.stop({ force, gracePeriodMs: this.stopGracePeriodMs });
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
    for (const held of this.redaction.flush()) this.store(held);
    this.exitCode = exit.exitCode ?? undefined;
    this.exitSignal = exit.signal ?? '';
    this.endedAt = this.clock.now();
    const data: Record<string, unknown> = {
      reason: this.stopReason ?? (exit.exitCode === 0 ? 'exited' : 'crashed'),
    };
    if (exit.exitCode !== null) data.exit_code = exit.exitCode;
    if (exit.signal) data.signal = exit.signal;
    if (this.stopReason || exit.exitCode === 0) {
      this.state = 'STOPPED';
      this.append({
        type: 'SESSION_STOPPED',
        stream: 'system',
        text: stopText(this.stopReason, exit),
        done: true,
        data,
      });
      this.terminalRecorded();
    } else {
      this.fail(exitText(exit), { ...data, stderr_tail: this.stderrTail });
    }
  }

  /** Marks the session failed with a terminal event. */
  fail(error: string, data: Record<string, unknown>): void {
    if (this.ended) return;
    this.scope.end(new ScopeEnded('exit'));
    this.state = 'FAILED';
    this.error = error;
    this.endedAt ??= this.clock.now();
    this.append({ type: 'SESSION_FAILED', stream: 'system', text: error, done: true, error, data });
    this.terminalRecorded();
  }

  snapshot(): SessionSnapshot {
    return {
      sessionId: this.id,
      projectId: this.projectId,
      provider: this.request.provider,
      status: this.state,
      createdAt: new Date(this.createdAt),
      stoppedAt: this.endedAt === undefined ? undefined : new Date(this.endedAt),
      error: this.error,
      pid: this.pid,
      exitCode: this.exitCode,
      exitSignal: this.exitSignal,
      repoPath: this.repoPath,
      oldestSeq: this.ring.oldestSeq,
      lastSeq: this.ring.lastSeq,
      subscriberCount: this.readers,
    };
  }
}

function stopText(reason: StopReason | undefined, exit: ExitInfo): string {
  switch (reason) {
    case 'stop_requested':
      return 'session stopped on request';
    case 'idle_timeout':
      return 'session stopped: idle timeout (no input, output or subscriber)';
    case 'shutdown':
      return 'session stopped: the daemon is shutting down';
    default:
      return `agent exited with code ${exit.exitCode}`;
  }
}

function exitText(exit: ExitInfo): string {
  return exit.signal ? `agent killed by ${exit.signal}` : `agent exited with code ${exit.exitCode}`;
}

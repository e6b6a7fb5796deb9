import type { AgentEvent, AgentHandle, ExitInfo, Provider } from '@agent-bridge/providers';
import { CursorStore } from './cursors.js';
import type { BridgeEvent } from './event.js';
import { EventRing } from './event-ring.js';
import type { Redactor } from './redactor.js';
import type { CoreSettings, SessionSnapshot, SessionStatus, StartRequest } from './types.js';

export type StopReason = 'stop_requested' | 'idle_timeout' | 'shutdown';

const MAX_IDEMPOTENCY_KEYS = 10_000;

/** One supervised agent session: its state, its event ring and its cursors. */
export class Session {
  readonly ring: EventRing;
  readonly cursors: CursorStore;
  readonly createdAt: number;
  status: SessionStatus = 'STARTING';
  stoppedAt: number | undefined;
  error = '';
  exitCode: number | undefined;
  exitSignal = '';
  handle: AgentHandle | undefined;
  pid = 0;
  /** Settles when start-up has finished (either way); identical retries wait on it. */
  started: Promise<void> | undefined;
  stopReason: StopReason | undefined;
  stopping: Promise<void> | undefined;
  activeStreams = 0;
  lastActivity: number;
  private readonly idempotency = new Map<string, number>();

  constructor(
    readonly request: StartRequest,
    readonly repoPath: string,
    readonly provider: Provider,
    settings: CoreSettings,
    private readonly redact: Redactor,
    private readonly now: () => number,
  ) {
    this.ring = new EventRing(settings.eventBufferSize, settings.eventBufferBytes);
    this.cursors = new CursorStore(settings.maxSubscribers, settings.subscriberTtlMs);
    this.createdAt = now();
    this.lastActivity = this.createdAt;
  }

  get id(): string {
    return this.request.sessionId;
  }

  get projectId(): string {
    return this.request.projectId;
  }

  get live(): boolean {
    return this.status === 'STARTING' || this.status === 'RUNNING' || this.status === 'STOPPING';
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

  /** Stores an event with the next seq. Text and error are redacted first. */
  append(ev: AgentEvent): BridgeEvent {
    const t = this.now();
    this.lastActivity = t;
    const stored: BridgeEvent = {
      seq: this.ring.lastSeq + 1,
      timestamp: t,
      sessionId: this.request.sessionId,
      projectId: this.request.projectId,
      provider: this.request.provider,
      type: ev.type,
      stream: ev.stream,
      text: this.redact(ev.text),
      done: ev.done ?? false,
      error: ev.error ? this.redact(ev.error) : '',
      turnId: ev.turnId ?? '',
      data: ev.data,
    };
    this.ring.push(stored);
    return stored;
  }

  /** The seq an idempotency key was first accepted with. */
  idempotentSeq(key: string): number | undefined {
    return key ? this.idempotency.get(key) : undefined;
  }

  rememberKey(key: string, seq: number): void {
    if (!key) return;
    if (this.idempotency.size >= MAX_IDEMPOTENCY_KEYS) {
      const oldest = this.idempotency.keys().next().value;
      if (oldest !== undefined) this.idempotency.delete(oldest);
    }
    this.idempotency.set(key, seq);
  }

  /** Records the end of the process: status, exit details and the terminal event. */
  finish(exit: ExitInfo, stderrTail: string): void {
    if (this.ended) return;
    this.exitCode = exit.exitCode ?? undefined;
    this.exitSignal = exit.signal ?? '';
    this.stoppedAt = this.now();
    const data: Record<string, unknown> = {
      reason: this.stopReason ?? (exit.exitCode === 0 ? 'exited' : 'crashed'),
    };
    if (exit.exitCode !== null) data.exit_code = exit.exitCode;
    if (exit.signal) data.signal = exit.signal;
    if (this.stopReason || exit.exitCode === 0) {
      this.status = 'STOPPED';
      this.append({
        type: 'SESSION_STOPPED',
        stream: 'system',
        text: stopText(this.stopReason, exit),
        done: true,
        data,
      });
    } else {
      this.fail(exitText(exit), { ...data, stderr_tail: this.redact(stderrTail) });
    }
  }

  /** Marks the session failed with a terminal event. */
  fail(error: string, data: Record<string, unknown>): void {
    this.status = 'FAILED';
    this.error = error;
    this.stoppedAt ??= this.now();
    this.append({ type: 'SESSION_FAILED', stream: 'system', text: error, done: true, error, data });
  }

  snapshot(): SessionSnapshot {
    return {
      sessionId: this.id,
      projectId: this.projectId,
      provider: this.request.provider,
      status: this.status,
      createdAt: new Date(this.createdAt),
      stoppedAt: this.stoppedAt === undefined ? undefined : new Date(this.stoppedAt),
      error: this.error,
      pid: this.pid,
      exitCode: this.exitCode,
      exitSignal: this.exitSignal,
      repoPath: this.repoPath,
      oldestSeq: this.ring.oldestSeq,
      lastSeq: this.ring.lastSeq,
      subscriberCount: this.activeStreams,
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

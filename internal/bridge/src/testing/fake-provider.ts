import { readlinkSync } from 'node:fs';
import {
  type AgentEvent,
  type AgentHandle,
  type AskPermission,
  type ExitInfo,
  InputClosedError,
  type OptionRefusal,
  type PermissionAsk,
  type PermissionVerdict,
  type Provider,
  type ProviderCapabilities,
  type ProviderStatus,
  type ResumePoint,
  type SessionSpec,
  SpawnError,
  StartupError,
} from '@agent-bridge/providers';
import { type Scope, ScopeEnded, scope } from '@agent-bridge/scope';

/**
 * An in-process agent. It answers each input with one STDOUT line, after
 * calling `recorded` as the provider contract requires; tests drive its
 * other output and its exit by hand.
 */
export class FakeAgent implements AgentHandle {
  readonly exited: Promise<ExitInfo>;
  readonly inputs: string[] = [];
  readonly stops: { force: boolean; gracePeriodMs: number }[] = [];
  /** Cleared to make the agent refuse input, as when it closed its stdin. */
  reading = true;
  /** Set by a test to give the agent a conversation to resume. */
  resumePoint: ResumePoint | undefined;
  interrupt?: () => Promise<{ interrupted: boolean; turnId: string }>;
  private resolveExit!: (exit: ExitInfo) => void;
  /** Each turn's scope, inside the session's, as a turn engine keeps them. */
  private readonly turns = new Map<string, Scope>();

  constructor(
    readonly pid: number,
    private readonly output: (event: AgentEvent) => void,
    interruptible: boolean,
    /** The session's permission gate, as a driver asks it for its agent. */
    private readonly gate: AskPermission = () => Promise.reject(new Error('no permission gate')),
    private readonly lifetime: AbortSignal = new AbortController().signal,
  ) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    if (interruptible) {
      // Like the turn engine: the cancel goes out and the turn's scope ends with it.
      this.interrupt = async () => {
        this.turnScope('turn-1').end(new ScopeEnded('interrupt'));
        return { interrupted: true, turnId: 'turn-1' };
      };
    }
  }

  /** Asks the gate within the scope of the ask's turn ("turn-1" when it names none). */
  ask(ask: PermissionAsk): Promise<PermissionVerdict> {
    return this.gate(ask, this.turnScope(ask.turnId ?? 'turn-1').signal);
  }

  /** Ends a turn as the turn engine does: its scope first, then TURN_COMPLETED. */
  completeTurn(turnId: string, interrupted = false): void {
    this.turnScope(turnId).end(new ScopeEnded(interrupted ? 'interrupt' : 'turn_end'));
    this.emit({
      type: 'TURN_COMPLETED',
      stream: 'system',
      text: interrupted ? 'interrupted' : 'completed',
      turnId,
      data: { interrupted },
    });
  }

  private turnScope(turnId: string): Scope {
    let s = this.turns.get(turnId);
    if (!s) {
      s = scope(this.lifetime);
      this.turns.set(turnId, s);
    }
    return s;
  }

  send(text: string, recorded: () => void): void {
    if (!this.reading) throw new InputClosedError();
    this.inputs.push(text);
    recorded();
    this.emit({ type: 'STDOUT', stream: 'stdout', text: `echo: ${text}` });
  }

  emit(event: AgentEvent): void {
    this.output(event);
  }

  /** The process ends (on its own, or because it was stopped). */
  exit(exit: ExitInfo): void {
    this.reading = false;
    this.resolveExit(exit);
  }

  stop(opts: {
    force: boolean;
    gracePeriodMs: number;
    keepConversation?: boolean;
  }): Promise<ExitInfo> {
    this.stops.push(opts);
    this.exit({ exitCode: null, signal: opts.force ? 'SIGKILL' : 'SIGTERM' });
    return this.exited;
  }
}

/** How the next start-ups go. */
export type StartOutcome = 'ready' | 'spawn_error' | 'startup_error' | 'startup_exit';

/**
 * A provider whose agents are FakeAgents. Tests choose how start-up ends
 * and may hold it open, to exercise timeouts and concurrent starts.
 */
export class FakeProvider implements Provider {
  readonly capabilities: ProviderCapabilities;
  readonly agents: FakeAgent[] = [];
  /** Per start: the repoPath it was given, and the directory its spawn cwd led to at the time. */
  readonly spawns: { repoPath: string; dir: string; tools?: SessionSpec['tools'] }[] = [];
  outcome: StartOutcome = 'ready';
  /** What an agent of outcome `startup_exit` writes to stderr before it exits. */
  lastWords: string[] = [];
  available = true;
  /** Goes on starting when its start-up is abandoned, as a badly behaved provider might. */
  ignoresAbort = false;
  private gate: Promise<void> = Promise.resolve();
  private preSpawn: Promise<void> = Promise.resolve();
  private nextPid = 1000;
  private startWaiters: (() => void)[] = [];
  /** The resume points let go of (`discard`). */
  readonly discarded: ResumePoint[] = [];

  constructor(
    readonly id = 'fake',
    { interrupt = false, resume = false }: { interrupt?: boolean; resume?: boolean } = {},
  ) {
    this.capabilities = {
      structuredEvents: false,
      multiTurn: true,
      interrupt,
      permissionRequests: false,
      resume,
    };
  }

  async discard(point: ResumePoint): Promise<void> {
    this.discarded.push(point);
  }

  validateOptions(options: Readonly<Record<string, string>>): OptionRefusal | undefined {
    const key = Object.keys(options).find((k) => k !== 'model');
    return key === undefined
      ? undefined
      : {
          key,
          refused: 'key',
          malformed: false,
          rule: 'is not accepted by provider "fake" (accepted: model)',
        };
  }

  /** Holds every start-up at its last step (spawn failure, or readiness) until released. */
  holdStartup(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => {
      release = resolve;
    });
    return release;
  }

  /**
   * Holds every start before its spawn (as resolving the binary may) until
   * released; the start goes on to spawn even if abandoned meanwhile.
   */
  holdSpawn(): () => void {
    let release!: () => void;
    this.preSpawn = new Promise((resolve) => {
      release = resolve;
    });
    return release;
  }

  /** Resolves once `start` is next called. */
  nextStart(): Promise<void> {
    return new Promise((resolve) => this.startWaiters.push(resolve));
  }

  async start(spec: SessionSpec): Promise<AgentHandle> {
    for (const notify of this.startWaiters.splice(0)) notify();
    await this.preSpawn;
    this.spawns.push({
      repoPath: spec.repoPath,
      dir: readlinkSync(spec.cwd),
      ...(spec.tools ? { tools: spec.tools } : {}),
    });
    if (this.outcome === 'spawn_error') {
      await this.gate;
      throw new SpawnError('fake-agent: not found', 'ENOENT');
    }
    const agent = new FakeAgent(
      ++this.nextPid,
      (ev) => spec.emit(ev),
      this.capabilities.interrupt,
      spec.askPermission,
      spec.lifetime,
    );
    this.agents.push(agent);
    spec.spawned(agent.pid);
    // Like a real provider, a start-up abandoned while it waits kills its agent and gives up.
    const abandoned = new Promise<'abandoned'>((resolve) => {
      if (this.ignoresAbort) return;
      if (spec.signal.aborted) resolve('abandoned');
      spec.signal.addEventListener('abort', () => resolve('abandoned'), { once: true });
    });
    if ((await Promise.race([this.gate, abandoned])) === 'abandoned') {
      agent.exit({ exitCode: null, signal: 'SIGKILL' });
      throw new StartupError('start-up abandoned');
    }
    if (this.outcome === 'startup_error') throw new StartupError('agent start-up failed: no ready');
    if (this.outcome === 'startup_exit') {
      // Like a real provider: the agent's last words go out as STDERR, then it is gone.
      for (const text of this.lastWords) spec.emit({ type: 'STDERR', stream: 'stderr', text });
      const exit = { exitCode: 7, signal: null };
      throw new StartupError('agent exited during start-up (code 7)', { exit });
    }
    return agent;
  }

  async health(): Promise<ProviderStatus> {
    return {
      available: this.available,
      error: this.available ? '' : 'fake-agent: not found',
      binaryPath: '/usr/bin/fake-agent',
      version: 'fake 1.0',
      authState: 'not_required',
      authDetail: '',
      checkedAt: new Date(0),
      probeState: 'current',
      confirmedAt: new Date(0),
      probeDetail: '',
      versionCoverage: 'unknown',
      testedVersions: '',
      warning: '',
    };
  }
}

import { rm } from 'node:fs/promises';
import type { AgentSettings } from '../agent-settings.js';
import { type ExitInfo, InputClosedError } from '../contract/errors.js';
import type { AgentEvent } from '../contract/events.js';
import type { JsonObject } from '../contract/json-value.js';
import type { PermissionAsk, PermissionVerdict } from '../contract/permission.js';
import type {
  AgentHandle,
  OptionRefusal,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  ResumePoint,
  SessionSpec,
} from '../contract/provider.js';
import { resolveCommand } from '../health/binary-probe.js';
import { HealthMonitor, type ProbeHost } from '../health/health-monitor.js';
import {
  type AuthProbe,
  DEFAULT_HEALTH_TTL_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
} from '../health/provider-health.js';
import type { TestedVersions } from '../health/tested-versions.js';
import { OptionPolicy, type OptionSpecs } from '../option-policy.js';
import { awaitStartup } from '../process/await-startup.js';
import { childEnv } from '../process/child-env.js';
import { homeEnv, isSessionHome, sessionHome, stateKey } from '../process/session-home.js';
import type { StartupGate } from '../process/startup-gate.js';
import type { Spawner, SupervisedProcess } from '../process/supervised-process.js';
import { MAX_PROTOCOL_LINE_BYTES, protocolLineReader } from './protocol-lines.js';
import type { TurnProtocol } from './turn.js';
import { TurnEngine } from './turn-engine.js';

export interface StructuredProviderOptions extends AgentSettings {
  id: string;
  binary: string;
  /** Extra argv from config, appended after the adapter's protocol arguments. */
  args: readonly string[];
  parentEnv: NodeJS.ProcessEnv;
  /** Where per-session homes (`isolateHome`) are created. */
  tempRoot: string;
  spawn: Spawner;
  /** Serialises first start-ups in a home; shared by the providers built together. */
  startupGate: StartupGate;
  /** Probe slots, version answers and the daemon's lifetime, shared by the providers built together. */
  probes: ProbeHost;
  /** How long an interrupt waits for the agent to end the turn (default 5s). */
  interruptWaitMs?: number;
}

/** What a protocol driver gets to talk to its agent and report events. */
export interface DriverContext {
  readonly spec: SessionSpec;
  /** Config defaults overlaid by the client's validated agent_opts. */
  readonly options: Readonly<Record<string, string>>;
  /**
   * Asks for a decision on the agent's permission and approval requests
   * (the session's gate), within the running turn's scope (the session's
   * between turns).
   */
  readonly askPermission: (ask: PermissionAsk) => Promise<PermissionVerdict>;
  /** The session's turns: the driver announces, begins and completes them here. */
  readonly turns: TurnEngine;
  /** Writes one JSON message as a line on the agent's stdin. Throws InputClosedError. */
  writeJson(msg: JsonObject): void;
  emit(event: AgentEvent): void;
}

/** One session's protocol state machine, fed with the agent's parsed stdout lines. */
export interface ProtocolDriver extends TurnProtocol {
  /** The start-up handshake (a new conversation, or `spec.resume`'s); resolves once the agent can take input. */
  handshake(signal: AbortSignal): Promise<void>;
  /** The agent's id of its conversation, once the handshake has it (AgentHandle.conversationId). */
  readonly conversationId?: string | undefined;
  /** One JSON object read from the agent's stdout. */
  onMessage(msg: JsonObject): void;
  /** The graceful stop step before SIGTERM; closing stdin when absent. */
  close?(): void;
  /** The process has exited and all output was delivered. */
  onExit?(info: ExitInfo): void;
}

const DEFAULT_TURN_TIMEOUT_MS = 10 * 60_000;

/**
 * Shared machinery of the adapters that speak a structured protocol over
 * stdio (claude stream-json, codex app-server, ACP): option policy, binary
 * resolution, health kept by a background monitor, per-session HOME
 * isolation, first start-ups serialised per home, JSON line parsing, and
 * the turn engine.
 * Subclasses supply the argv, the environment defaults, the probes and the
 * protocol driver.
 */
export abstract class StructuredProvider implements Provider {
  abstract readonly capabilities: ProviderCapabilities;
  readonly id: string;
  protected readonly policy: OptionPolicy;
  private monitor: HealthMonitor | undefined;

  constructor(
    protected readonly opts: StructuredProviderOptions,
    optionSpecs: OptionSpecs,
  ) {
    this.id = opts.id;
    this.policy = new OptionPolicy(opts.id, optionSpecs, opts);
  }

  /** The adapter's protocol arguments for one session (config `args` are appended). */
  protected abstract protocolArgs(
    spec: SessionSpec,
    options: Readonly<Record<string, string>>,
  ): string[];

  protected abstract createDriver(ctx: DriverContext): ProtocolDriver;

  /** Environment defaults of this adapter; config `env` overrides them. */
  protected adapterEnv(): Record<string, string> {
    return {};
  }

  /** A free (no model call) authentication probe; a process it runs ends at `deadline`. */
  protected async probeAuth(
    _binaryPath: string,
    _env: Record<string, string>,
    _deadline: AbortSignal,
  ): Promise<AuthProbe> {
    return { state: 'unknown', detail: '' };
  }

  /** The binary to run (the mock overrides this to run its built-in agent). */
  protected async command(): Promise<{ file: string; prefix: string[] }> {
    return {
      file: await resolveCommand(this.opts.binary, this.opts.parentEnv.PATH ?? ''),
      prefix: [],
    };
  }

  /** The versions of this CLI the contract tests cover; none for an agent they do not run. */
  protected get testedVersions(): TestedVersions | undefined {
    return undefined;
  }

  /** Whether start-ups in a shared home must wait for each other (not for agents that keep no state). */
  protected get keepsStateInHome(): boolean {
    return true;
  }

  validateOptions(options: Readonly<Record<string, string>>): OptionRefusal | undefined {
    return this.policy.validate(options);
  }

  health(): Promise<ProviderStatus> {
    // Built at first use: the environment comes from subclass state set after this constructor.
    this.monitor ??= new HealthMonitor({
      resolve: async () => (await this.command()).file,
      env: this.baseEnv(),
      versionRequired: true,
      parseVersion: (output) => this.parseVersion(output),
      ...(this.testedVersions ? { testedVersions: this.testedVersions } : {}),
      probeAuth: (binaryPath, env, deadline) => this.probeAuth(binaryPath, env, deadline),
      probeTimeoutMs: this.opts.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
      healthTtlMs: this.opts.healthTtlMs ?? DEFAULT_HEALTH_TTL_MS,
      host: this.opts.probes,
    });
    return this.monitor.status();
  }

  protected baseEnv(): Record<string, string> {
    return childEnv(this.opts.parentEnv, { ...this.adapterEnv(), ...this.opts.env });
  }

  async start(spec: SessionSpec): Promise<AgentHandle> {
    const options = this.policy.resolve(spec.options);
    const { file, prefix } = await this.command();
    const env = this.baseEnv();
    const home = this.opts.isolateHome
      ? await sessionHome(this.opts.tempRoot, spec.sessionId, spec.resume)
      : undefined;
    if (home) Object.assign(env, homeEnv(home));
    let keepHome = false;
    const removeHome = () =>
      home && !keepHome
        ? rm(home, { recursive: true, force: true }).catch(() => undefined)
        : undefined;

    let proc: SupervisedProcess | undefined;
    const emit = (e: AgentEvent) => spec.emit(e);
    const turns = new TurnEngine({
      lifetime: spec.lifetime,
      emit,
      inputOpen: () => proc?.inputOpen ?? false,
      timeoutMs: this.opts.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS,
      kill: () => proc?.signalGroup('SIGKILL'),
      ...(this.opts.interruptWaitMs !== undefined
        ? { interruptWaitMs: this.opts.interruptWaitMs }
        : {}),
    });
    const driver = this.createDriver({
      spec,
      options,
      askPermission: (ask) => spec.askPermission(ask, turns.current?.signal ?? spec.lifetime),
      turns,
      emit,
      writeJson: (msg) => {
        if (!proc) throw new InputClosedError();
        proc.write(`${JSON.stringify(msg)}\n`);
      },
    });
    turns.attach(driver);

    const launch = async () => {
      spec.startupClock.restart();
      proc = await this.opts.spawn({
        file,
        args: [...prefix, ...this.protocolArgs(spec, options), ...this.opts.args],
        cwd: spec.cwd,
        env,
        sessionId: spec.sessionId,
        stdoutMaxLineBytes: MAX_PROTOCOL_LINE_BYTES,
        onStdoutLine: protocolLineReader({
          onMessage: (msg) => driver.onMessage(msg),
          emit,
          emitRaw: this.opts.emitRaw ?? false,
          turnId: () => turns.currentId,
        }),
        onStderrLine: (text, continued) =>
          emit({
            type: 'STDERR',
            stream: 'stderr',
            text,
            ...(continued ? { data: { continued: true } } : {}),
          }),
        onSpawn: (pid) => spec.spawned(pid),
        ...(spec.outputGate ? { outputGate: spec.outputGate } : {}),
      });
      await awaitStartup(
        proc,
        driver.handshake(spec.signal),
        spec.signal,
        'finish its start-up handshake',
      );
      return proc;
    };
    let running: SupervisedProcess;
    try {
      if (home || !this.keepsStateInHome) running = await launch();
      else {
        // A wait for the home's first start-up is not the session's start-up time.
        spec.startupClock.stop();
        running = await this.opts.startupGate.run(stateKey(file, env), spec.signal, launch);
      }
    } catch (err) {
      // awaitStartup ended the agent; the driver lets go of what it still awaits.
      const exit = await proc?.exited;
      turns.close();
      if (exit) driver.onExit?.(exit);
      await removeHome();
      throw err;
    }
    const exited = running.exited.then(async (info) => {
      turns.close();
      driver.onExit?.(info);
      await removeHome();
      return info;
    });
    return {
      pid: running.pid,
      get resumePoint() {
        const conversationId = driver.conversationId;
        return conversationId ? { conversationId, ...(home ? { home } : {}) } : undefined;
      },
      exited,
      send: (text, recorded) => turns.send(text, recorded),
      interrupt: () => turns.interrupt(),
      // Resolves after the session's own clean-up (driver, isolated HOME), not just the exit.
      stop: ({ force, gracePeriodMs, keepConversation }) => {
        keepHome = keepConversation === true;
        return running
          .stop({
            force,
            gracePeriodMs,
            graceful: () => (driver.close ? driver.close() : running.closeInput()),
          })
          .then(() => exited);
      },
    };
  }

  async discard(point: ResumePoint): Promise<void> {
    if (point.home && isSessionHome(this.opts.tempRoot, point.home))
      await rm(point.home, { recursive: true, force: true });
  }

  /** The version in `--version` output (`2.1.197 (Claude Code)`, `codex-cli 0.169.0`); undefined when it holds none. */
  protected parseVersion(output: string): string | undefined {
    return /\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.-]+)?/.exec(output)?.[0];
  }
}

import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CachedProbe, probeOutput, resolveBinary } from './binary-probe.js';
import { childEnv } from './child-env.js';
import type { AgentEvent } from './events.js';
import { OptionPolicy, type OptionSpecs } from './option-policy.js';
import type {
  AgentHandle,
  AuthState,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  SessionSpec,
} from './provider.js';
import {
  type ExitInfo,
  InputClosedError,
  SpawnError,
  StartupError,
  SupervisedProcess,
} from './supervised-process.js';
import { TurnTracker } from './turn-tracker.js';

/** Protocol lines up to this size are parsed whole; longer ones are reported and dropped. */
export const MAX_PROTOCOL_LINE_BYTES = 16 * 1024 * 1024;

export interface StructuredProviderOptions {
  id: string;
  binary: string;
  /** Extra argv from config, appended after the adapter's protocol arguments. */
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  parentEnv: NodeJS.ProcessEnv;
  /** Where per-session homes (`isolateHome`) are created. */
  tempRoot: string;
  turnTimeoutMs?: number;
  emitRaw?: boolean;
  permissions?: 'deny' | 'allow';
  allowedOpts?: Record<string, string[]> | undefined;
  defaultOpts?: Record<string, string>;
  isolateHome?: boolean;
  healthTtlMs?: number;
}

/** What a protocol driver gets to talk to its agent and report events. */
export interface DriverContext {
  readonly spec: SessionSpec;
  /** Config defaults overlaid by the client's validated agent_opts. */
  readonly options: Readonly<Record<string, string>>;
  /** How to answer the agent's permission and approval requests. */
  readonly permissions: 'deny' | 'allow';
  readonly turns: TurnTracker;
  /** Writes one JSON message as a line on the agent's stdin. Throws InputClosedError. */
  writeJson(msg: unknown): void;
  emit(event: AgentEvent): void;
}

/** One session's protocol state machine, fed with the agent's parsed stdout lines. */
export interface ProtocolDriver {
  /** The start-up handshake; resolves once the agent can take input. */
  handshake(signal: AbortSignal): Promise<void>;
  /** One JSON value read from the agent's stdout. Must not throw. */
  onMessage(msg: unknown): void;
  /** Delivers one SendInput. Throws InputClosedError when the agent no longer reads. */
  send(text: string): void;
  /** Cancels the running turn. */
  interrupt(): Promise<{ interrupted: boolean; turnId: string }>;
  /** The graceful stop step before SIGTERM; closing stdin when absent. */
  close?(): void;
  /** The process has exited and all output was delivered. */
  onExit?(info: ExitInfo): void;
}

/** Auth as a probe found it. */
export interface AuthProbe {
  state: AuthState;
  detail: string;
}

const DEFAULT_HEALTH_TTL_MS = 60_000;
const DEFAULT_TURN_TIMEOUT_MS = 10 * 60_000;

/**
 * Shared machinery of the adapters that speak a structured protocol over
 * stdio (claude stream-json, codex app-server, ACP): option policy, binary
 * resolution, health probes with a cache, per-session HOME isolation, JSON
 * line parsing with stray text kept as STDOUT, optional raw lines, and the
 * turn timeout. Subclasses supply the argv, the environment defaults, the
 * probes and the protocol driver.
 */
export abstract class StructuredProvider implements Provider {
  abstract readonly capabilities: ProviderCapabilities;
  readonly id: string;
  protected readonly policy: OptionPolicy;
  private readonly probe: CachedProbe<ProviderStatus>;

  constructor(
    protected readonly opts: StructuredProviderOptions,
    optionSpecs: OptionSpecs,
  ) {
    this.id = opts.id;
    this.policy = new OptionPolicy(opts.id, optionSpecs, opts);
    this.probe = new CachedProbe(
      () => this.probeHealth(),
      opts.healthTtlMs ?? DEFAULT_HEALTH_TTL_MS,
    );
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

  /** A free (no model call) authentication probe. */
  protected async probeAuth(_binaryPath: string, _env: Record<string, string>): Promise<AuthProbe> {
    return { state: 'unknown', detail: '' };
  }

  /** Extracts the version from `--version` output. */
  protected parseVersion(output: string): string {
    const m = /\d+\.\d+\.\d+(?:[-+.][0-9A-Za-z.-]+)?/.exec(output);
    return m ? m[0] : (output.split('\n')[0] ?? '').slice(0, 64);
  }

  /** The binary to run (the mock overrides this to run its built-in agent). */
  protected async command(): Promise<{ file: string; prefix: string[] }> {
    try {
      return { file: await resolveBinary(this.opts.binary, this.opts.parentEnv.PATH), prefix: [] };
    } catch (err) {
      throw new SpawnError((err as Error).message, 'ENOENT');
    }
  }

  validateOptions(options: Readonly<Record<string, string>>): string | undefined {
    return this.policy.validate(options);
  }

  health(): Promise<ProviderStatus> {
    return this.probe.get();
  }

  protected baseEnv(): Record<string, string> {
    return childEnv(this.opts.parentEnv, { ...this.adapterEnv(), ...this.opts.env });
  }

  async start(spec: SessionSpec): Promise<AgentHandle> {
    const options = this.policy.resolve(spec.options);
    const { file, prefix } = await this.command();
    const env = this.baseEnv();
    const home = this.opts.isolateHome
      ? await makeSessionHome(this.opts.tempRoot, spec.sessionId)
      : undefined;
    if (home) Object.assign(env, homeEnv(home));

    let proc: SupervisedProcess | undefined;
    let oversize = false;
    const emit = (e: AgentEvent) => spec.emit(e);
    // The timer's callback runs long after construction, when `driver` is set.
    const turns = new TurnTracker(this.opts.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS, (turnId) =>
      this.onTurnTimeout(turnId, driver, emit, () => {
        // A turn that completed while the interrupt was on its way needs no kill.
        if (turns.current === turnId) proc?.signalGroup('SIGKILL');
      }),
    );
    const ctx: DriverContext = {
      spec,
      options,
      permissions: this.opts.permissions ?? 'deny',
      turns,
      emit,
      writeJson: (msg) => {
        if (!proc) throw new InputClosedError();
        proc.write(`${JSON.stringify(msg)}\n`);
      },
    };
    const driver = this.createDriver(ctx);

    const onStdout = (text: string, continued: boolean) => {
      if (continued || oversize) {
        // Pieces of a line over MAX_PROTOCOL_LINE_BYTES: report once, drop the rest.
        if (!oversize) {
          emit({
            type: 'AGENT_ERROR',
            stream: 'system',
            text: `the agent wrote a protocol line over ${MAX_PROTOCOL_LINE_BYTES} bytes; it was dropped`,
            error: 'protocol line too long',
            turnId: turns.current,
          });
        }
        oversize = continued;
        return;
      }
      if (this.opts.emitRaw) emit({ type: 'STDOUT', stream: 'stdout', text, data: { raw: true } });
      const msg = parseJsonLine(text);
      if (msg === undefined) {
        // Stray text (a banner, a warning) is kept, never dropped or fatal.
        if (!this.opts.emitRaw && text.length > 0) emit({ type: 'STDOUT', stream: 'stdout', text });
        return;
      }
      try {
        driver.onMessage(msg);
      } catch (err) {
        emit({
          type: 'AGENT_ERROR',
          stream: 'system',
          text: `could not handle a message from the agent: ${(err as Error).message}`,
          error: 'protocol error',
          turnId: turns.current,
        });
      }
    };
    try {
      proc = await SupervisedProcess.spawn({
        file,
        args: [...prefix, ...this.protocolArgs(spec, options), ...this.opts.args],
        cwd: spec.repoPath,
        env,
        stdoutMaxLineBytes: MAX_PROTOCOL_LINE_BYTES,
        onStdoutLine: onStdout,
        onStderrLine: (text, continued) =>
          emit({
            type: 'STDERR',
            stream: 'stderr',
            text,
            ...(continued ? { data: { continued: true } } : {}),
          }),
        onSpawn: (pid) => spec.spawned(pid),
      });
    } catch (err) {
      if (home) await rm(home, { recursive: true, force: true });
      throw err;
    }
    const running = proc;
    const exited = running.exited.then(async (info) => {
      turns.end();
      driver.onExit?.(info);
      if (home) await rm(home, { recursive: true, force: true }).catch(() => undefined);
      return info;
    });

    await this.handshake(driver, running, spec.signal);
    return {
      pid: running.pid,
      exited,
      send: (text, recorded) => {
        driver.send(text);
        recorded();
      },
      interrupt: () => driver.interrupt(),
      // Resolves after the session's own clean-up (driver, isolated HOME), not just the exit.
      stop: ({ force, gracePeriodMs }) =>
        running
          .stop({
            force,
            gracePeriodMs,
            graceful: () => (driver.close ? driver.close() : running.closeInput()),
          })
          .then(() => exited),
      stderrTail: () => running.stderrTail(),
    };
  }

  /**
   * A turn ran past turn_timeout: report it, interrupt it, and kill the agent
   * if that fails (`kill` checks that the turn is still the running one).
   */
  private onTurnTimeout(
    turnId: string,
    driver: ProtocolDriver,
    emit: (e: AgentEvent) => void,
    kill: () => void,
  ): void {
    const limit = this.opts.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
    emit({
      type: 'AGENT_ERROR',
      stream: 'system',
      text: `turn ${turnId} exceeded the turn timeout (${Math.round(limit / 1000)}s); interrupting it`,
      error: 'turn timeout',
      turnId,
      data: { reason: 'turn_timeout', timeout_ms: limit },
    });
    driver.interrupt().then(
      (r) => {
        if (!r.interrupted) kill();
      },
      () => kill(),
    );
  }

  /** Runs the driver's handshake, failing start-up when the agent exits or start-up is abandoned. */
  private async handshake(driver: ProtocolDriver, proc: SupervisedProcess, signal: AbortSignal) {
    const aborted = new Promise<'aborted'>((resolve) => {
      if (signal.aborted) resolve('aborted');
      signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    let outcome: 'ready' | 'aborted' | ExitInfo | Error;
    try {
      outcome = await Promise.race([
        driver.handshake(signal).then(() => 'ready' as const),
        proc.exited,
        aborted,
      ]);
    } catch (err) {
      outcome = err as Error;
    }
    if (outcome === 'ready') return;
    if (outcome instanceof Error || outcome === 'aborted') {
      await proc.stop({ force: true, gracePeriodMs: 0 });
    }
    if (outcome === 'aborted') {
      throw new StartupError(
        'the agent did not finish its start-up handshake before the startup timeout',
      );
    }
    if (outcome instanceof Error)
      throw new StartupError(`agent start-up failed: ${outcome.message}`);
    const tail = proc.stderrTail().trim().split('\n').slice(-3).join(' | ');
    throw new StartupError(
      `agent exited during start-up (${outcome.signal ? `signal ${outcome.signal}` : `code ${outcome.exitCode}`})${tail ? `: ${tail}` : ''}`,
    );
  }

  protected async probeHealth(): Promise<ProviderStatus> {
    const checkedAt = new Date();
    let binaryPath: string;
    try {
      binaryPath = (await this.command()).file;
    } catch (err) {
      return {
        available: false,
        error: (err as Error).message,
        binaryPath: '',
        version: '',
        authState: 'unknown',
        authDetail: '',
        checkedAt,
      };
    }
    const env = this.baseEnv();
    const [v, auth] = await Promise.all([
      probeOutput(binaryPath, ['--version'], { env, timeoutMs: 10_000 }),
      this.probeAuth(binaryPath, env).catch(
        (err: Error): AuthProbe => ({ state: 'unknown', detail: err.message }),
      ),
    ]);
    if (!v.ok) {
      return {
        available: false,
        error: `"${binaryPath} --version" failed: ${v.output.split('\n')[0] ?? ''}`.trim(),
        binaryPath,
        version: '',
        authState: auth.state,
        authDetail: auth.detail,
        checkedAt,
      };
    }
    return {
      available: true,
      error: '',
      binaryPath,
      version: this.parseVersion(v.output),
      authState: auth.state,
      authDetail: auth.detail,
      checkedAt,
    };
  }
}

/** Parses a stdout line as a JSON object; undefined for anything else. */
export function parseJsonLine(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function makeSessionHome(tempRoot: string, sessionId: string): Promise<string> {
  const dir = join(tempRoot, `agent-bridge-home-${sessionId}-${randomUUID().slice(0, 8)}`);
  await mkdir(dir, { mode: 0o700 });
  await mkdir(join(dir, '.codex'), { mode: 0o700 });
  return dir;
}

/** Everything that points a CLI at its state: all of it inside the session's own home. */
function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    CODEX_HOME: join(home, '.codex'),
  };
}

import { CachedProbe, probeOutput, resolveBinary } from './binary-probe.js';
import { childEnv } from './child-env.js';
import type { AgentEvent } from './events.js';
import type {
  AgentHandle,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  SessionSpec,
} from './provider.js';
import { SpawnError, StartupError, SupervisedProcess } from './supervised-process.js';

export interface ProcessProviderOptions {
  id: string;
  /** Name on PATH or absolute path. */
  binary: string;
  args: readonly string[];
  /** Explicit extra environment for the child (providers.<id>.env). */
  env: Readonly<Record<string, string>>;
  /** The daemon's environment, from which only an allowlist is inherited. */
  parentEnv: NodeJS.ProcessEnv;
  /** How long health results are cached. */
  healthTtlMs?: number;
  /** Regex a stdout line must match before the agent counts as started ('' = at spawn). */
  readyPattern?: string;
}

const HEALTH_TTL_MS = 60_000;

/**
 * Any command that reads lines on stdin and writes lines on stdout/stderr:
 * each input becomes one stdin line, each output line a STDOUT or STDERR
 * event. Its graceful stop step is closing stdin.
 */
export class StdioProvider implements Provider {
  readonly capabilities: ProviderCapabilities = {
    structuredEvents: false,
    multiTurn: true,
    interrupt: false,
    permissionRequests: false,
  };
  readonly id: string;
  private readonly probe: CachedProbe<ProviderStatus>;

  constructor(protected readonly opts: ProcessProviderOptions) {
    this.id = opts.id;
    this.probe = new CachedProbe(() => this.probeHealth(), opts.healthTtlMs ?? HEALTH_TTL_MS);
  }

  validateOptions(options: Readonly<Record<string, string>>): string | undefined {
    const keys = Object.keys(options);
    if (keys.length === 0) return undefined;
    return `provider "${this.id}" accepts no agent_opts (got ${keys.map((k) => JSON.stringify(k)).join(', ')})`;
  }

  health(): Promise<ProviderStatus> {
    return this.probe.get();
  }

  /** The executable and argv to spawn; the mock overrides this. */
  protected async command(): Promise<{ file: string; args: readonly string[] }> {
    try {
      return {
        file: await resolveBinary(this.opts.binary, this.opts.parentEnv.PATH),
        args: this.opts.args,
      };
    } catch (err) {
      throw new SpawnError((err as Error).message, 'ENOENT');
    }
  }

  async start(spec: SessionSpec): Promise<AgentHandle> {
    const { file, args } = await this.command();
    const ready = this.opts.readyPattern ? new RegExp(this.opts.readyPattern) : undefined;
    let markReady: (() => void) | undefined;
    const readySeen = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    const line =
      (type: 'STDOUT' | 'STDERR', stream: 'stdout' | 'stderr') =>
      (text: string, continued: boolean) => {
        const ev: AgentEvent = { type, stream, text };
        if (continued) ev.data = { continued: true };
        spec.emit(ev);
        if (ready && stream === 'stdout' && ready.test(text)) markReady?.();
      };
    const proc = await SupervisedProcess.spawn({
      file,
      args,
      cwd: spec.repoPath,
      env: childEnv(this.opts.parentEnv, this.opts.env),
      onStdoutLine: line('STDOUT', 'stdout'),
      onStderrLine: line('STDERR', 'stderr'),
      onSpawn: (pid) => spec.spawned(pid),
    });
    if (ready) await this.awaitReady(proc, readySeen, spec.signal);
    return {
      pid: proc.pid,
      exited: proc.exited,
      send: (text, recorded) => {
        proc.write(text.endsWith('\n') ? text : `${text}\n`);
        recorded();
      },
      stop: ({ force, gracePeriodMs }) =>
        proc.stop({ force, gracePeriodMs, graceful: () => proc.closeInput() }),
      stderrTail: () => proc.stderrTail(),
    };
  }

  /** Waits for the ready line; fails when the agent exits first or start-up is abandoned. */
  private async awaitReady(proc: SupervisedProcess, readySeen: Promise<void>, signal: AbortSignal) {
    const outcome = await Promise.race([
      readySeen.then(() => 'ready' as const),
      proc.exited.then((e) => e),
      new Promise<'aborted'>((resolve) => {
        if (signal.aborted) resolve('aborted');
        signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      }),
    ]);
    if (outcome === 'ready') return;
    if (outcome === 'aborted') {
      await proc.stop({ force: true, gracePeriodMs: 0 });
      throw new StartupError('agent did not print its ready line before the startup timeout');
    }
    throw new StartupError(
      `agent exited during start-up (${outcome.signal ? `signal ${outcome.signal}` : `code ${outcome.exitCode}`})`,
    );
  }

  protected async probeHealth(): Promise<ProviderStatus> {
    const checkedAt = new Date();
    let binaryPath: string;
    try {
      binaryPath = await resolveBinary(this.opts.binary, this.opts.parentEnv.PATH);
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
    const v = await probeOutput(binaryPath, ['--version'], {
      env: childEnv(this.opts.parentEnv, { ...this.opts.env }),
    });
    return {
      available: true,
      error: '',
      binaryPath,
      version: v.ok ? (v.output.split('\n')[0] ?? '') : '',
      authState: 'unknown',
      authDetail: '',
      checkedAt,
    };
  }
}

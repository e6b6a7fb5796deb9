import type { AgentEvent } from '../contract/events.js';
import type {
  AgentHandle,
  OptionRefusal,
  Provider,
  ProviderStatus,
  SessionSpec,
} from '../contract/provider.js';
import { resolveCommand } from '../health/binary-probe.js';
import { HealthMonitor, type ProbeHost } from '../health/health-monitor.js';
import { DEFAULT_HEALTH_TTL_MS, DEFAULT_PROBE_TIMEOUT_MS } from '../health/provider-health.js';
import { awaitStartup } from '../process/await-startup.js';
import { childEnv } from '../process/child-env.js';
import type { Spawner } from '../process/supervised-process.js';

export interface ProcessProviderOptions {
  id: string;
  /** Name on PATH or absolute path. */
  binary: string;
  args: readonly string[];
  /** Explicit extra environment for the child (providers.<id>.env). */
  env: Readonly<Record<string, string>>;
  /** The daemon's environment, from which only an allowlist is inherited. */
  parentEnv: NodeJS.ProcessEnv;
  spawn: Spawner;
  /** Probe slots, version answers and the daemon's lifetime, shared by the providers built together. */
  probes: ProbeHost;
  /** How long a health answer holds before it is re-checked. */
  healthTtlMs?: number;
  /** The budget of one background health probe; its processes are killed at it. */
  probeTimeoutMs?: number;
  /** Regex a stdout line must match before the agent counts as started ('' = at spawn). */
  readyPattern?: string;
}

/**
 * Any command that reads lines on stdin and writes lines on stdout/stderr:
 * each input becomes one stdin line, each output line a STDOUT or STDERR
 * event. Its graceful stop step is closing stdin.
 */
export class StdioProvider implements Provider {
  readonly capabilities = {
    structuredEvents: false,
    multiTurn: true,
    interrupt: false,
    permissionRequests: false,
    // A plain process has no conversation of its own to go back to.
    resume: false,
  };
  readonly id: string;
  private readonly monitor: HealthMonitor;

  constructor(protected readonly opts: ProcessProviderOptions) {
    this.id = opts.id;
    this.monitor = new HealthMonitor({
      resolve: () => resolveCommand(opts.binary, opts.parentEnv.PATH ?? ''),
      env: this.env(),
      // Any command may run here; one without --version is still usable.
      versionRequired: false,
      parseVersion: (output) => output.split('\n')[0] ?? '',
      probeTimeoutMs: opts.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
      healthTtlMs: opts.healthTtlMs ?? DEFAULT_HEALTH_TTL_MS,
      host: opts.probes,
    });
  }

  validateOptions(options: Readonly<Record<string, string>>): OptionRefusal | undefined {
    const [key] = Object.keys(options);
    if (key === undefined) return undefined;
    return {
      key,
      refused: 'key',
      malformed: false,
      rule: `is not accepted: provider "${this.id}" takes no agent_opts`,
    };
  }

  health(): Promise<ProviderStatus> {
    return this.monitor.status();
  }

  async start(spec: SessionSpec): Promise<AgentHandle> {
    const file = await resolveCommand(this.opts.binary, this.opts.parentEnv.PATH ?? '');
    const ready = this.opts.readyPattern ? new RegExp(this.opts.readyPattern) : undefined;
    let markReady!: () => void;
    const readySeen = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    const line =
      (type: 'STDOUT' | 'STDERR', stream: 'stdout' | 'stderr') =>
      (text: string, continued: boolean) => {
        const ev: AgentEvent = { type, stream, text };
        if (continued) ev.data = { continued: true };
        spec.emit(ev);
        if (ready && stream === 'stdout' && ready.test(text)) markReady();
      };
    const proc = await this.opts.spawn({
      file,
      args: this.opts.args,
      cwd: spec.cwd,
      env: this.env(),
      sessionId: spec.sessionId,
      onStdoutLine: line('STDOUT', 'stdout'),
      onStderrLine: line('STDERR', 'stderr'),
      onSpawn: (pid) => spec.spawned(pid),
      ...(spec.outputGate ? { outputGate: spec.outputGate } : {}),
    });
    if (ready) await awaitStartup(proc, readySeen, spec.signal, 'print its ready line');
    return {
      pid: proc.pid,
      exited: proc.exited,
      send: (text, recorded) => {
        proc.write(text.endsWith('\n') ? text : `${text}\n`);
        recorded();
      },
      stop: ({ force, gracePeriodMs }) =>
        proc.stop({ force, gracePeriodMs, graceful: () => proc.closeInput() }),
    };
  }

  private env(): Record<string, string> {
    return childEnv(this.opts.parentEnv, { ...this.opts.env });
  }
}

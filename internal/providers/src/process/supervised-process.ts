import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { type ExitInfo, InputClosedError, SpawnError } from '../contract/errors.js';
import type { OutputGate } from '../contract/output-gate.js';
import { firstWithin } from './abortable.js';
import { LineSplitter } from './line-splitter.js';
import { signalGroup } from './process-group.js';

export interface SpawnOptions {
  file: string;
  args: readonly string[];
  /**
   * The child's working directory, used as given: the child chdirs to it
   * after the fork and before exec, so a /proc/self/fd link resolves to the
   * descriptor the child inherited from the daemon.
   */
  cwd: string;
  env: Record<string, string>;
  /** The session the process serves: named in the records of live process groups. */
  sessionId?: string;
  onStdoutLine(text: string, continued: boolean): void;
  onStderrLine(text: string, continued: boolean): void;
  /** Called with the pid as soon as the process exists, before any output is read. */
  onSpawn?(pid: number): void;
  /** Longest stdout line delivered whole (structured protocols need long lines). */
  stdoutMaxLineBytes?: number;
  /** While closed, the pipes are not read (the agent blocks on its writes). */
  outputGate?: OutputGate;
}

/** Starts a supervised child; passed in so that tests and embedders can substitute it. */
export type Spawner = (opts: SpawnOptions) => Promise<SupervisedProcess>;

/** How long to wait for stdout/stderr to drain after the process group is gone. */
const DRAIN_TIMEOUT_MS = 2000;

/**
 * A child process in its own process group, read line by line, that never
 * takes the daemon down: no shell, EPIPE on stdin is absorbed, every signal
 * goes to the group (guarded so a missing pid can never signal pid 0 or 1,
 * which would hit the daemon's own group), and when the leader exits the
 * rest of its group is killed so no grandchild outlives the session.
 */
export class SupervisedProcess {
  readonly pid: number;
  /** Resolves once the process has exited and its output is fully read. */
  readonly exited: Promise<ExitInfo>;
  private stdinOpen = true;
  private hasExited = false;

  private constructor(
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
    opts: SpawnOptions,
  ) {
    this.pid = child.pid as number;
    const out = new LineSplitter(opts.onStdoutLine, opts.stdoutMaxLineBytes);
    const err = new LineSplitter(opts.onStderrLine);
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    const pipes = [child.stdout, child.stderr];
    const flow = (open: boolean) => {
      for (const p of pipes) open ? p?.resume() : p?.pause();
    };
    const stopFlow = opts.outputGate?.onChange(flow);
    if (opts.outputGate && !opts.outputGate.open) flow(false);
    child.stdin?.on('error', () => {
      // EPIPE/ECONNRESET when the agent is gone: input is simply no longer deliverable.
      this.stdinOpen = false;
    });
    child.stdin?.on('close', () => {
      this.stdinOpen = false;
    });
    this.exited = (async () => {
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      this.hasExited = true;
      this.stdinOpen = false;
      // Grandchildren may still hold the pipes open: end the whole group.
      this.signalGroup('SIGKILL');
      // What is left in the pipes is finite now: read it all, gate or not.
      stopFlow?.();
      flow(true);
      await firstWithin(
        [Promise.all([streamClosed(child.stdout), streamClosed(child.stderr)])],
        DRAIN_TIMEOUT_MS,
      );
      child.stdout?.destroy();
      child.stderr?.destroy();
      out.flush();
      err.flush();
      return { exitCode: code, signal };
    })();
  }

  /** Spawns `file` with `args` (argv only, never a shell) in its own process group. */
  static async spawn(opts: SpawnOptions): Promise<SupervisedProcess> {
    // Node's own spawn, not execa's: when the daemon is out of descriptors
    // (EMFILE/ENFILE) Node returns a child without pipes and emits the error
    // on the next tick; execa then throws out of its wrapper and leaves that
    // child without an 'error' listener, which takes the whole daemon down.
    let child: ChildProcessByStdio<Writable, Readable, Readable>;
    try {
      child = spawn(opts.file, [...opts.args], {
        cwd: opts.cwd,
        env: opts.env,
        shell: false,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      // Thrown at once: E2BIG (argv or environment too large) and the like.
      const early = e as NodeJS.ErrnoException;
      throw new SpawnError(spawnMessage(opts.file, early), early.code, { cause: early });
    }
    // Errors after a successful spawn (a failed kill) show in 'exit'; none may go unheard.
    child.on('error', () => undefined);
    const early = await once(child, 'spawn').then(
      () => undefined,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    if (early) throw new SpawnError(spawnMessage(opts.file, early), early.code, { cause: early });
    if (!Number.isInteger(child.pid) || (child.pid as number) <= 1) {
      throw new SpawnError(`could not start ${opts.file}: no process id`, undefined);
    }
    opts.onSpawn?.(child.pid as number);
    return new SupervisedProcess(child, opts);
  }

  get inputOpen(): boolean {
    return this.stdinOpen && !this.hasExited;
  }

  get running(): boolean {
    return !this.hasExited;
  }

  /** Writes to stdin. Throws InputClosedError when the agent no longer reads. */
  write(data: string): void {
    const stdin = this.child.stdin;
    if (!this.inputOpen || !stdin || stdin.destroyed || !stdin.writable)
      throw new InputClosedError();
    stdin.write(data);
    // A pipe whose reader has gone fails the write at once (EPIPE): the
    // stream is errored before write returns, so the input is refused now
    // rather than accepted and silently lost.
    if (stdin.errored) {
      this.stdinOpen = false;
      throw new InputClosedError({ cause: stdin.errored });
    }
  }

  closeInput(): void {
    this.stdinOpen = false;
    this.child.stdin?.end();
  }

  /** Sends `signal` to the whole process group. Returns false when the group is already gone. */
  signalGroup(signal: NodeJS.Signals): boolean {
    return signalGroup(this.pid, signal);
  }

  /**
   * Stops the process: `graceful` runs first (e.g. close stdin), then SIGTERM
   * to the group, then SIGKILL once `gracePeriodMs` has passed since the call.
   * `force` sends SIGKILL at once. Resolves when the process has exited.
   */
  async stop(opts: {
    force: boolean;
    gracePeriodMs: number;
    graceful?: () => void;
  }): Promise<ExitInfo> {
    if (this.hasExited) return this.exited;
    if (opts.force) {
      this.signalGroup('SIGKILL');
      return this.exited;
    }
    const deadline = Date.now() + opts.gracePeriodMs;
    opts.graceful?.();
    // Give the graceful step a short head start before SIGTERM.
    const head = Math.min(1000, opts.gracePeriodMs / 4);
    if ((await firstWithin([this.exited], head)) !== 'waited') return this.exited;
    this.signalGroup('SIGTERM');
    const rest = Math.max(0, deadline - Date.now());
    if ((await firstWithin([this.exited], rest)) !== 'waited') return this.exited;
    this.signalGroup('SIGKILL');
    return this.exited;
  }
}

function streamClosed(s: NodeJS.ReadableStream | null | undefined): Promise<void> {
  if (!s) return Promise.resolve();
  const r = s as NodeJS.ReadableStream & { closed?: boolean; destroyed?: boolean };
  if (r.closed || r.destroyed) return Promise.resolve();
  return once(s, 'close').then(() => undefined);
}

function spawnMessage(file: string, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return `binary "${file}" not found (or the working directory does not exist)`;
    case 'EACCES':
      return `binary "${file}" is not executable`;
    case 'EMFILE':
    case 'ENFILE':
      return `too many open files (${err.code}): cannot start another process`;
    case 'E2BIG':
      return `could not start "${file}": its arguments and environment are too large (E2BIG)`;
    default:
      return `could not start "${file}": ${err.code ?? err.message}`;
  }
}

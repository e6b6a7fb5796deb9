import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Readable } from 'node:stream';
import { SpawnError } from '../contract/errors.js';
import { signalGroup } from '../process/process-group.js';

/** Resolves a binary name to an absolute executable path (configured path, else PATH). */
export async function resolveBinary(binary: string, pathEnv: string): Promise<string> {
  if (binary.length === 0) throw new Error('no binary configured');
  if (binary.includes('/')) {
    if (!isAbsolute(binary)) throw new Error(`binary path "${binary}" must be absolute`);
    await checkExecutable(binary);
    return binary;
  }
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    try {
      await checkExecutable(candidate);
      return candidate;
    } catch {
      // try the next PATH entry
    }
  }
  throw new Error(`binary "${binary}" not found on PATH`);
}

/** resolveBinary for a session about to start: a binary that cannot run is a SpawnError. */
export async function resolveCommand(binary: string, pathEnv: string): Promise<string> {
  try {
    return await resolveBinary(binary, pathEnv);
  } catch (err) {
    throw new SpawnError((err as Error).message, 'ENOENT');
  }
}

async function checkExecutable(path: string): Promise<void> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(path);
  } catch {
    throw new Error(`binary "${path}" not found`);
  }
  if (!st.isFile()) throw new Error(`"${path}" is not a file`);
  try {
    await access(path, constants.X_OK);
  } catch {
    throw new Error(`binary "${path}" is not executable`);
  }
}

/** What one probe process gave. */
export interface ProbeOutput {
  /** It exited 0, and its output was complete, before the deadline. */
  ok: boolean;
  /** What it printed: stdout, then stderr (each cut at MAX_PROBE_OUTPUT_BYTES). */
  output: string;
  /** The deadline came first: its process group was killed and `output` is what came before. */
  timedOut: boolean;
  /** It could not be spawned: the error code (ENOENT, EACCES, EAGAIN, …). */
  errno?: string;
  /** A signal from elsewhere ended it (the deadline's own kill is `timedOut`). */
  signal?: NodeJS.Signals;
}

const MAX_PROBE_OUTPUT_BYTES = 64 * 1024;

/**
 * Runs `<binary> <args>` with stdin closed, in its own process group, with
 * exactly `env`, until it has exited and its output is read, or until
 * `deadline` aborts. At the deadline the whole group is killed and the
 * probe answers at once: it does not wait for pipes a grandchild may hold.
 * When the process exits, what it left running in its group is killed too,
 * for the same reason. A process that leaves its group (setsid) is beyond
 * reach; the deadline still bounds the probe.
 */
export function probeOutput(
  binary: string,
  args: readonly string[],
  opts: { env: Record<string, string>; deadline: AbortSignal },
): Promise<ProbeOutput> {
  const { deadline } = opts;
  if (deadline.aborted) return Promise.resolve({ ok: false, output: '', timedOut: true });
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(binary, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        env: opts.env,
      });
    } catch (err) {
      const errno = (err as NodeJS.ErrnoException).code;
      resolve({
        ok: false,
        output: (err as Error).message,
        timedOut: false,
        ...(errno ? { errno } : {}),
      });
      return;
    }
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    const output = () => `${stdout().trimEnd()}\n${stderr().trimEnd()}`.trim();
    let settled = false;
    const settle = (r: ProbeOutput) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(r);
    };
    const onDeadline = () => {
      signalGroup(child.pid, 'SIGKILL');
      settle({ ok: false, output: output(), timedOut: true });
    };
    deadline.addEventListener('abort', onDeadline, { once: true });
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    child.once('error', (err: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        output: err.message,
        timedOut: false,
        ...(err.code ? { errno: err.code } : {}),
      }),
    );
    child.once('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // Whatever it left in its group would keep the pipes open: the probe is over.
      if (!settled) signalGroup(child.pid, 'SIGKILL');
    });
    child.once('close', () =>
      settle({
        ok: exitCode === 0,
        output: output(),
        timedOut: false,
        ...(exitSignal ? { signal: exitSignal } : {}),
      }),
    );
  });
}

/** Collects up to MAX_PROBE_OUTPUT_BYTES of a stream; returns a reader of what came so far. */
function capture(stream: Readable | null): () => string {
  const chunks: Buffer[] = [];
  let bytes = 0;
  stream?.on('data', (chunk: Buffer) => {
    if (bytes >= MAX_PROBE_OUTPUT_BYTES) return;
    chunks.push(chunk.subarray(0, MAX_PROBE_OUTPUT_BYTES - bytes));
    bytes += chunk.length;
  });
  return () => Buffer.concat(chunks).toString('utf8');
}

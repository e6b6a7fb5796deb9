import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { execa } from 'execa';
import { SpawnError } from './supervised-process.js';

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

/**
 * Runs `<binary> <args>` with stdin closed, in its own process group, with
 * exactly `env`: `ok` when it exited 0 in time, `output` what it printed
 * (stdout, then stderr).
 */
export async function probeOutput(
  binary: string,
  args: readonly string[],
  opts: { timeoutMs?: number; env: Record<string, string> },
): Promise<{ ok: boolean; output: string }> {
  const r = await execa(binary, args, {
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 5000,
    reject: false,
    detached: true,
    extendEnv: false,
    env: opts.env,
    maxBuffer: 64 * 1024,
    forceKillAfterDelay: 1000,
  });
  const output = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim();
  return { ok: r.exitCode === 0 && !r.timedOut, output };
}

/** Caches a probe for `ttlMs`; concurrent callers share one run. */
export class CachedProbe<T> {
  private value: { at: number; result: Promise<T> } | undefined;

  constructor(
    private readonly run: () => Promise<T>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    const t = this.now();
    if (!this.value || t - this.value.at >= this.ttlMs) {
      this.value = { at: t, result: this.run() };
    }
    return this.value.result;
  }
}

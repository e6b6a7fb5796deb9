import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from '@agent-bridge/waits';
import { stringify } from 'yaml';
import { AuditReader } from './audit.js';
import type { TestPki } from './pki.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const FAKE_AGENT = join(REPO_ROOT, 'tests/fixtures/fake-agent.mjs');
const STOP_WAIT_MS = 20_000;

export interface TestDaemon {
  port: number;
  /** The metrics listener's port, when `metrics.listen` is configured. */
  metricsPort: number | undefined;
  pid: number;
  proc: ChildProcess;
  /** An allowed directory to run sessions in (real path). */
  repo: string;
  /** Temp root holding config, repos and anything else of this daemon. */
  dir: string;
  /** The daemon's audit file (`logging.audit_path`), unless the config moved it. */
  audit: AuditReader;
  output(): string;
  /**
   * SIGTERM and wait for exit; resolves with the exit code. A daemon still
   * running `stopWaitMs` (20 s) later is killed and the stop fails. `dir`
   * is removed, unless `keepDir` (a daemon will start in it again).
   */
  stop(opts?: { keepDir?: boolean }): Promise<number | null>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface DaemonOptions {
  pki: TestPki;
  /** Merged over the default test config (plain YAML object, snake_case keys). */
  config?: Record<string, unknown>;
  /** `client_identities` of the "control" and "other" issuers (none: any trusted certificate). */
  clientIdentities?: Partial<Record<'control' | 'other', string[]>>;
  /** Fake agent providers by id → scenario args. */
  fakeProviders?: Record<string, string[]>;
  env?: Record<string, string>;
  /**
   * The program and arguments that start the daemon with `configPath`.
   * Default: `cmd/bridge/src/main.ts --config <configPath>` from source (tsx,
   * "development" condition).
   */
  command?: (configPath: string) => { file: string; args: string[]; cwd?: string };
  /** How long `stop` waits for the daemon to exit after SIGTERM (default 20 s). */
  stopWaitMs?: number;
  /**
   * Start in this directory, an earlier daemon's `dir` (its config, repos,
   * audit file and session store), instead of a new one: a restart.
   */
  dir?: string;
}

/**
 * The arguments of `node` that run the daemon from source with `configPath`
 * (tsx, "development" condition), after `nodeFlags` (e.g. V8 options).
 */
export function daemonFromSource(configPath: string, nodeFlags: readonly string[] = []): string[] {
  return [
    ...nodeFlags,
    '--conditions=development',
    '--import',
    'tsx',
    join(REPO_ROOT, 'cmd/bridge/src/main.ts'),
    '--config',
    configPath,
  ];
}

const fromSource: NonNullable<DaemonOptions['command']> = (configPath) => ({
  file: process.execPath,
  args: daemonFromSource(configPath),
});

/**
 * Starts the real daemon (`cmd/bridge`, from source unless `opts.command`
 * says otherwise) as a child process on 127.0.0.1 with an ephemeral port,
 * and waits for its readiness line.
 */
export async function startDaemon(opts: DaemonOptions): Promise<TestDaemon> {
  const dir = opts.dir ?? realpathSync(mkdtempSync(join(tmpdir(), 'bridge-daemon-')));
  const repo = join(dir, 'repos', 'app');
  mkdirSync(repo, { recursive: true });
  const providers: Record<string, unknown> = { mock: {} };
  for (const [id, args] of Object.entries(opts.fakeProviders ?? {})) {
    providers[id] = {
      binary: process.execPath,
      args: [FAKE_AGENT, ...args],
      ready_pattern: '^ready$',
    };
  }
  const base = {
    server: { listen: '127.0.0.1:0' },
    tls: { ca_bundle: opts.pki.caPath, cert: opts.pki.serverCertPath, key: opts.pki.serverKeyPath },
    auth: {
      jwt_public_keys: (['control', 'other'] as const).map((issuer) => ({
        issuer,
        key_path: opts.pki.issuers[issuer].pubPath,
        client_identities: opts.clientIdentities?.[issuer] ?? [],
      })),
    },
    // The process group record (orphan guard) of this daemon alone.
    sessions: { stop_grace_period: '2s', state_dir: join(dir, 'state') },
    // The embedded store, as in production, in this daemon's directory.
    storage: { path: join(dir, 'store') },
    // Far above what any test does unless it sets its own: a test about
    // something else must never meet a rate limit by accident.
    rate_limits: {
      start_session: { per_minute: 100_000, burst: 10_000 },
      send_input: { per_minute: 1_000_000, burst: 100_000 },
      failed_auth: { per_minute: 100_000, burst: 10_000 },
    },
    providers,
    allowed_paths: [join(dir, 'repos')],
    logging: { level: 'info', format: 'json', audit_path: join(dir, 'audit.jsonl') },
  };
  const config = deepMerge(base, opts.config ?? {});
  const auditPath = (config.logging as { audit_path?: string }).audit_path ?? '';
  const configPath = join(dir, 'bridge.yaml');
  writeFileSync(configPath, stringify(config));

  const command = (opts.command ?? fromSource)(configPath);
  const proc = spawn(command.file, command.args, {
    cwd: command.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env, BRIDGE_READY_FD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = captureOutput(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let port: number;
  let metricsPort: number | undefined;
  try {
    const ready = /BRIDGE_READY port=(\d+)(?: metrics_port=(\d+))?\n/;
    const m = await output.waitFor('the daemon to print BRIDGE_READY', ready, 30_000);
    port = Number(m[1]);
    metricsPort = m[2] === undefined ? undefined : Number(m[2]);
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    // An earlier daemon's directory is not this one's to remove.
    if (opts.dir === undefined) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    metricsPort,
    pid: proc.pid as number,
    proc,
    repo,
    dir,
    audit: new AuditReader(auditPath),
    output: output.text,
    exited,
    stop: async ({ keepDir = false } = {}) => {
      try {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        const waitMs = opts.stopWaitMs ?? STOP_WAIT_MS;
        return (await within('the daemon to exit after SIGTERM', exited, waitMs)).code;
      } catch (err) {
        proc.kill('SIGKILL');
        await exited;
        throw err;
      } finally {
        if (!keepDir) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function deepMerge(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      prev &&
      typeof prev === 'object' &&
      !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** A child's stdout and stderr as they arrive, with a wait for a line of it. */
export interface CapturedOutput {
  /** Everything the child printed so far, stdout and stderr interleaved. */
  text(): string;
  /**
   * Resolves with the first match of `pattern` in the output. Fails when the
   * child exits first, or after `timeoutMs`, with the output so far.
   */
  waitFor(what: string, pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** Starts collecting `proc`'s stdout and stderr (both must be pipes). */
export function captureOutput(proc: ChildProcess): CapturedOutput {
  let out = '';
  const listeners = new Set<() => void>();
  let exit: string | undefined;
  const onData = (d: Buffer | string) => {
    out += d;
    for (const l of [...listeners]) l();
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  proc.once('exit', (code, signal) => {
    exit = signal ? `signal ${signal}` : `code ${code}`;
    for (const l of [...listeners]) l();
  });
  return {
    text: () => out,
    waitFor: (what, pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            done();
            resolve(m);
          } else if (exit !== undefined) {
            done();
            reject(new Error(`the process exited (${exit}) before ${what}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { TestPki } from './pki.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const FAKE_AGENT = join(REPO_ROOT, 'tests/fixtures/fake-agent.mjs');

export interface TestDaemon {
  port: number;
  pid: number;
  proc: ChildProcess;
  /** An allowed directory to run sessions in (real path). */
  repo: string;
  /** Temp root holding config, repos and anything else of this daemon. */
  dir: string;
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface DaemonOptions {
  pki: TestPki;
  /** Merged over the default test config (plain YAML object, snake_case keys). */
  config?: Record<string, unknown>;
  /** Fake agent providers by id → scenario args. */
  fakeProviders?: Record<string, string[]>;
  env?: Record<string, string>;
}

/**
 * Starts the real daemon (`cmd/bridge`, from source) as a child process on
 * 127.0.0.1 with an ephemeral port, and waits for its readiness line.
 */
export async function startDaemon(opts: DaemonOptions): Promise<TestDaemon> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bridge-daemon-')));
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
      jwt_public_keys: [
        { issuer: 'control', key_path: opts.pki.issuers.control.pubPath },
        { issuer: 'other', key_path: opts.pki.issuers.other.pubPath },
      ],
    },
    sessions: { stop_grace_period: '2s' },
    providers,
    allowed_paths: [join(dir, 'repos')],
    logging: { level: 'info', format: 'json' },
  };
  const config = deepMerge(base, opts.config ?? {});
  const configPath = join(dir, 'bridge.yaml');
  writeFileSync(configPath, stringify(config));

  const proc = spawn(
    process.execPath,
    [
      '--conditions=development',
      '--import',
      'tsx',
      join(REPO_ROOT, 'cmd/bridge/src/main.ts'),
      '--config',
      configPath,
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...opts.env, BRIDGE_READY_FD: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`daemon did not start in time:\n${out}`)),
      30_000,
    );
    const onData = () => {
      const m = /BRIDGE_READY port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on('data', onData);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    port,
    pid: proc.pid as number,
    proc,
    repo,
    dir,
    output: () => out,
    exited,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const { code } = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
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

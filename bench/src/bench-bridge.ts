import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Bridge, startBridge, waitFor } from '@agent-bridge/harness';
import type { GetSessionResponse } from '@agent-bridge/proto';
import { built } from './built.js';
import { stdoutCount } from './stream-reader.js';
import { timedRead } from './timed-read.js';

const CAT = '/usr/bin/cat';
const SH = '/bin/sh';
const MKFIFO = '/usr/bin/mkfifo';

/** Provider ids of the bench's agents, all of them plain `cat`. */
export const AGENTS = {
  /** Waits for one input line, then becomes `cat <file>`: live output once a reader is attached. */
  gatedCat: 'gated-cat',
  /** `cat <file>` from the start. */
  cat: 'cat-file',
  /** `cat` of its stdin: an idle session. */
  idle: 'cat-idle',
  /** `cat` of a FIFO it makes in the stamps directory, named by its pid. */
  fifo: 'cat-fifo',
} as const;

/** A file of `n` lines of `width` bytes (before the newline), numbered. */
export function linesFile(dir: string, n: number, width: number): string {
  const path = join(dir, `lines-${n}x${width}.txt`);
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(`${i} `.padEnd(width, 'x'));
  writeFileSync(path, `${parts.join('\n')}\n`);
  return path;
}

export interface BenchBridge extends Bridge {
  /** Where the files and FIFOs of this run live (removed by close). */
  scratch: string;
  /** Starts a session of `agent` and returns its id. */
  start(agent: string): Promise<string>;
  /** Waits until the session's agent has exited, and returns the session as then. */
  finished(sessionId: string, timeoutMs: number): Promise<GetSessionResponse>;
}

/**
 * A real daemon (tests harness: child process, mTLS, JWT) whose agents are
 * `cat`: of `file`, of stdin, or of a FIFO under the scratch directory.
 * `config` is merged over the test configuration.
 */
export async function startBenchBridge(o: {
  file?: string;
  config?: Record<string, unknown>;
  /** Node flags for the daemon (NODE_OPTIONS), given the scratch directory. */
  nodeOptions?: (scratch: string) => string[];
  /** How long closing waits for the daemon to exit after SIGTERM (the harness's 20 s by default). */
  stopWaitMs?: number;
  /** Start on an earlier daemon's directory and PKI (its store): a restart. */
  again?: { dir: string; pki: Bridge['pki'] };
}): Promise<BenchBridge> {
  const scratch = mkdtempSync(join(tmpdir(), 'bridge-bench-'));
  const file = o.file ?? '/dev/null';
  // BENCH_PROFILE=<dir>: every daemon writes a V8 CPU profile there when it
  // stops (a flag NODE_OPTIONS may not carry, so it goes on the command line).
  const profileDir = process.env.BENCH_PROFILE;
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const main = built('cmd/bridge/src/main.ts');
  const bridge = await startBridge({
    ...(o.nodeOptions ? { env: { NODE_OPTIONS: o.nodeOptions(scratch).join(' ') } } : {}),
    ...(o.stopWaitMs ? { stopWaitMs: o.stopWaitMs } : {}),
    ...(o.again ?? {}),
    // The built daemon, as a service runs it (see built.ts).
    command: (configPath) => ({
      file: process.execPath,
      args: [...flags, main, '--config', configPath],
    }),
    project: 'bench',
    config: {
      // The daemon's defaults: no audit file (the test harness turns one on).
      logging: { level: 'warn', audit_path: '' },
      providers: {
        [AGENTS.gatedCat]: { binary: SH, args: ['-c', `read _ && exec ${CAT} "$0"`, file] },
        [AGENTS.cat]: { binary: CAT, args: [file] },
        [AGENTS.idle]: { binary: CAT, args: [] },
        [AGENTS.fifo]: {
          binary: SH,
          args: ['-c', `f="$0/$$.fifo" && ${MKFIFO} "$f" && exec ${CAT} "$f"`, scratch],
        },
      },
      ...o.config,
    },
  });
  const start = async (agent: string) => {
    const sessionId = randomUUID();
    await bridge.call((c) => c.startSession, {
      projectId: 'bench',
      sessionId,
      repoPath: bridge.daemon.repo,
      provider: agent,
      agentOpts: {},
    });
    return sessionId;
  };
  return {
    ...bridge,
    scratch,
    start,
    finished: async (sessionId, timeoutMs) => {
      let last: GetSessionResponse | undefined;
      await waitFor(
        () => `session ${sessionId} to end (last status ${last?.status})`,
        async () => {
          last = await bridge.call((c) => c.getSession, { sessionId });
          return last.stoppedAt !== undefined;
        },
        timeoutMs,
        50,
      );
      return last!;
    },
    close: async () => {
      try {
        await bridge.close();
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  };
}

/**
 * B1's batched live read on `bridge`: a gated `cat` of `n` lines let go once
 * the reader is attached; events/s from the go line to the n-th STDOUT event.
 */
export async function batchedIngestRate(bridge: BenchBridge, n: number): Promise<number> {
  const sessionId = await bridge.start(AGENTS.gatedCat);
  const secs = await timedRead({
    what: 'live batches',
    client: bridge.client,
    md: bridge.md,
    request: { sessionId, afterSeq: 0n, subscriberId: '' },
    batched: true,
    done: stdoutCount(n),
    trigger: () => bridge.call((c) => c.sendInput, { sessionId, text: 'go', idempotencyKey: '' }),
  });
  await bridge.finished(sessionId, 60_000);
  return n / secs;
}

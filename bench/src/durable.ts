import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AGENTS,
  type BenchBridge,
  batchedIngestRate,
  linesFile,
  startBenchBridge,
} from './bench-bridge.js';
import { daemonLatencies } from './latency.js';
import { against, median, quantile, type Row } from './row.js';
import type { Sizes } from './sizes.js';
import { timedRead } from './timed-read.js';

const MEMORY = { storage: { backend: 'memory' } };

/**
 * B10: what the durable store (LMDB, the default) costs. Each daemon row is
 * measured against the same daemon on `storage.backend: memory` in the same
 * run: the store only adds work, so memory is a ceiling (a floor for times).
 * Live ingest (B1's batched workload, target ratio ≥ 0.8), stdout to client
 * p99 at 1,000 lines/s (B3's set-up, target ≤ 3 ms), the first replay of a
 * session after a restart (target ≤ 50 ms) and a restart on a store holding
 * `restartSessions` ended sessions (target ≤ 2 s).
 */
export async function durableRows(s: Sizes): Promise<Row[]> {
  return [
    ...(await ingestRows(s)),
    ...(await latencyRows(s)),
    ...(await restartRows(s, 'replay')),
    ...(await restartRows(s, 'sessions')),
  ];
}

const row = (name: string, value: number, unit: string, better: 'higher' | 'lower') =>
  ({ id: 'B10', name, value, unit, better }) as const;

/** Events/s of B1's batched live read, on the embedded store and on memory. */
async function ingestRows(s: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-durable-'));
  const n = s.events;
  const capacity = n + 64;
  const file = linesFile(dir, n, s.width);
  const sessions = {
    event_buffer_size: capacity,
    event_buffer_bytes: `${Math.ceil((capacity * (s.width + 512)) / 2 ** 20)}MiB`,
  };
  const rate = (bridge: BenchBridge) => batchedIngestRate(bridge, n);
  const durable = await startBenchBridge({ file, config: { sessions } });
  const memory = await startBenchBridge({ file, config: { sessions, ...MEMORY } });
  try {
    const runs = { durable: [] as number[], memory: [] as number[] };
    for (let rep = 0; rep < s.reps; rep++) {
      runs.durable.push(await rate(durable));
      runs.memory.push(await rate(memory));
    }
    return [
      against({
        ...row(
          'live StreamEventBatches, embedded store',
          median(runs.durable),
          'events/s',
          'higher',
        ),
        ref: {
          name: 'the same on memory',
          value: median(runs.memory),
          unit: 'events/s',
          ceiling: true,
        },
        target: { min: 0.8, on: 'ratio' },
      }),
    ];
  } finally {
    await durable.close();
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** B3 at 1,000 lines/s, on the embedded store and on memory. */
async function latencyRows(s: Sizes): Promise<Row[]> {
  const perSecond = 1_000;
  const total = perSecond * s.latencySeconds;
  const warmup = perSecond * s.latencyWarmupSeconds;
  const timeoutMs = (s.latencySeconds + s.latencyWarmupSeconds) * 1000 + 60_000;
  const limits = { max_global: s.latencySessions + 2, max_per_project: s.latencySessions + 2 };
  const p99 = async (config: Record<string, unknown>) => {
    const bridge = await startBenchBridge({ config: { sessions: limits, ...config } });
    try {
      const { daemonMs } = await daemonLatencies(bridge, s, perSecond, total, warmup, timeoutMs);
      return quantile(daemonMs, 0.99);
    } finally {
      await bridge.close();
    }
  };
  const durable = await p99({});
  const memory = await p99(MEMORY);
  return [
    against({
      ...row(
        `stdout to client p99, ${perSecond}/s over ${s.latencySessions} sessions, embedded store`,
        durable,
        'ms',
        'lower',
      ),
      ref: { name: 'the same on memory', value: memory, unit: 'ms', ceiling: true },
      target: { max: 3, on: 'value' },
    }),
  ];
}

/**
 * A daemon given a store to restart on, stopped (SIGTERM) and started again
 * on it; then, for 'replay', the first read of a session of `replay` lines
 * (ms from the call to its last event), for 'sessions', the start itself
 * with `restartSessions` ended sessions stored (ms from spawn to a
 * connected client). Each against the same measure on memory, where the
 * restart has nothing to load.
 */
async function restartRows(s: Sizes, what: 'replay' | 'sessions'): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-restart-'));
  const lines = what === 'replay' ? s.replay : 10;
  const file = linesFile(dir, lines, s.width);
  const count = what === 'replay' ? 1 : s.restartSessions;
  const config = (store: Record<string, unknown>) => ({
    ...store,
    sessions: {
      event_buffer_size: lines + 64,
      event_buffer_bytes: '64MiB',
      max_global: count + 2,
      max_per_project: count + 2,
      retention: '1h',
    },
  });
  /** The median over `reps` restarts of the same store (one set-up). */
  const measure = async (store: Record<string, unknown>) => {
    let bridge = await startBenchBridge({ file, config: config(store) });
    const dir = bridge.daemon.dir;
    const runs: number[] = [];
    try {
      const ids: string[] = [];
      // Sessions stored for a restart to load: none to store on memory.
      const n = what === 'sessions' && store === MEMORY ? 0 : count;
      for (let i = 0; i < n; i++) ids.push(await bridge.start(AGENTS.cat));
      for (const id of ids) await bridge.finished(id, 60_000);
      for (let rep = 0; rep < Math.max(s.reps, 3); rep++) {
        bridge.client.close();
        await bridge.daemon.stop({ keepDir: true });
        const t0 = process.hrtime.bigint();
        bridge = await startBenchBridge({
          file,
          config: config(store),
          again: { dir, pki: bridge.pki },
        });
        const startMs = Number(process.hrtime.bigint() - t0) / 1e6;
        if (what === 'sessions') {
          runs.push(startMs);
          continue;
        }
        // On memory the session is gone: replay a new one of the same lines.
        const found = await bridge
          .call((c) => c.getSession, { sessionId: ids[0]! })
          .catch(() => undefined);
        const id = found ? ids[0]! : await bridge.start(AGENTS.cat);
        const last = found ? found.lastSeq : (await bridge.finished(id, 60_000)).lastSeq;
        const secs = await timedRead({
          what: 'the first replay after a restart',
          client: bridge.client,
          md: bridge.md,
          request: { sessionId: id, afterSeq: 0n, subscriberId: '' },
          batched: true,
          done: (e) => e.seq >= Number(last),
        });
        runs.push(secs * 1000);
      }
      return median(runs);
    } finally {
      await bridge.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    const durable = await measure({});
    const memory = await measure(MEMORY);
    const name =
      what === 'replay'
        ? `first replay of ${lines} events after a restart, embedded store`
        : `restart with ${count} stored sessions (spawn to a connected client), embedded store`;
    return [
      against({
        ...row(name, durable, 'ms', 'lower'),
        ref: {
          name:
            what === 'replay'
              ? 'the same on memory (a session started after the restart)'
              : 'the same daemon on memory (nothing to load)',
          value: memory,
          unit: 'ms',
          // Read from a ring either way once restored: a comparison, not a floor.
          ceiling: what === 'sessions',
        },
        target: { max: what === 'replay' ? 50 : 2000, on: 'value' },
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

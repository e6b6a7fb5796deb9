import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, within } from '@agent-bridge/harness';
import { EventType, SessionEvent } from '@agent-bridge/proto';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { AGENTS, type BenchBridge, startBenchBridge } from './bench-bridge.js';
import { built } from './built.js';
import { startReference } from './reference-process.js';
import { against, quantile, type Row } from './row.js';
import type { Sizes } from './sizes.js';

/**
 * Milliseconds from each line's stamp to its arrival here, over `streams`,
 * until `total` stamped events have arrived after the first `warmup`, which
 * are not counted. Any stream error fails it.
 */
function latencies(
  what: string,
  streams: ClientReadableStream<SessionEvent>[],
  total: number,
  warmup: number,
  timeoutMs: number,
): { attached: Promise<void>; all: Promise<number[]>; sample: () => SessionEvent | undefined } {
  const ms: number[] = [];
  let skipped = 0;
  let sample: SessionEvent | undefined;
  let attached = 0;
  let onAttached: () => void = () => undefined;
  const attachedAll = new Promise<void>((resolve) => {
    onAttached = resolve;
  });
  const all = new Promise<number[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: timed out with ${ms.length} of ${total} events`)),
      timeoutMs,
    );
    for (const s of streams) {
      let first = true;
      s.on('data', (e: SessionEvent) => {
        const now = process.hrtime.bigint();
        if (first) {
          first = false;
          if (++attached === streams.length) onAttached();
        }
        if (e.type !== EventType.EVENT_TYPE_STDOUT) return;
        sample ??= e;
        if (skipped < warmup) {
          skipped++;
          return;
        }
        ms.push(Number(now - BigInt(e.text.slice(0, e.text.indexOf(' ')))) / 1e6);
        if (ms.length === total) {
          clearTimeout(timer);
          resolve(ms);
        }
      });
      s.on('error', (err: ServiceError) => {
        if (ms.length < total) reject(new Error(`${what}: ${err.message}`));
      });
    }
  });
  return { attached: attachedAll, all, sample: () => sample };
}

/**
 * B3: stdout to client. `latencySessions` agents, each `cat` of a FIFO that
 * one writer process fills at a given rate in total, every
 * line stamped with the monotonic clock when written (shared by all
 * processes on Linux); the time to arrive here over StreamEvents. At each of
 * `latencyRates`.
 * Reference: the bare grpc-js server process stamping and writing events of
 * the same shape at the same rate over as many streams.
 */
export async function latencyRows(s: Sizes): Promise<Row[]> {
  const n = s.latencySessions;
  const bridge = await startBenchBridge({
    config: {
      sessions: {
        max_global: n * s.latencyRates.length + 2,
        max_per_project: n * s.latencyRates.length + 2,
      },
    },
  });
  const reference = await startReference(bridge.pki);
  const refClient = reference.client;
  try {
    const rows: Row[] = [];
    for (const perSecond of s.latencyRates) {
      const total = perSecond * s.latencySeconds;
      // Both sides run the first second unmeasured: a steady rate is what is measured.
      const warmup = perSecond * s.latencyWarmupSeconds;
      const timeoutMs = (s.latencySeconds + s.latencyWarmupSeconds) * 1000 + 60_000;
      const { daemonMs, template } = await daemonLatencies(
        bridge,
        s,
        perSecond,
        total,
        warmup,
        timeoutMs,
      );
      await reference.command({
        cmd: 'latency',
        template: Buffer.from(SessionEvent.encode(template).finish()).toString('base64'),
        streams: n,
        perSecond,
        total: total + warmup,
        width: s.width,
      });
      const bare = latencies(
        'bare latency',
        Array.from({ length: n }, () =>
          refClient.streamEvents(
            { sessionId: 'latency', afterSeq: 0n, subscriberId: '' },
            bridge.md,
          ),
        ),
        total,
        warmup,
        timeoutMs,
      );
      const bareMs = await bare.all;
      const row = (label: string, q: number, target?: number) =>
        against({
          id: 'B3',
          name: `stdout to client ${label}, ${perSecond}/s over ${n} sessions`,
          value: quantile(daemonMs, q),
          unit: 'ms',
          better: 'lower',
          ref: {
            name: `bare write to receive ${label}`,
            value: quantile(bareMs, q),
            unit: 'ms',
            ceiling: true,
          },
          ...(target ? { target: { max: target, on: 'value' as const } } : {}),
        });
      rows.push(
        row('min', 0),
        row('p50', 0.5),
        row('p99', 0.99, perSecond === 10_000 ? 2 : undefined),
        row('max', 1),
      );
    }
    return rows;
  } finally {
    await reference.stop();
    await bridge.close();
  }
}

/** One round of the daemon's side: fresh FIFO sessions, a reader on each, then the writer. */
export async function daemonLatencies(
  bridge: BenchBridge,
  s: Sizes,
  perSecond: number,
  total: number,
  warmup: number,
  timeoutMs: number,
): Promise<{ daemonMs: number[]; template: SessionEvent }> {
  const n = s.latencySessions;
  const fifos = () => readdirSync(bridge.scratch).filter((f) => f.endsWith('.fifo'));
  // The FIFOs of an earlier round are left behind by their ended `cat`s.
  for (const f of fifos()) rmSync(join(bridge.scratch, f));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await bridge.start(AGENTS.fifo));
  const streams = ids.map((sessionId) => bridge.stream({ sessionId, afterSeq: 0n }));
  const daemon = latencies('daemon latency', streams, total, warmup, timeoutMs);
  await within('every latency session to send its first event', daemon.attached, 30_000);
  await waitFor(`${n} FIFOs in ${bridge.scratch}`, () => fifos().length === n, 30_000);
  const writer = spawn(
    process.execPath,
    [
      built('bench/src/stamp-writer.ts'),
      bridge.scratch,
      String(n),
      String(perSecond),
      String(total + warmup),
      String(s.width),
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const writerExit = once(writer, 'exit');
  let daemonMs: number[];
  try {
    daemonMs = await daemon.all;
  } finally {
    writer.kill();
    for (const st of streams) st.cancel();
  }
  const [code] = await within('the stamp writer to exit', writerExit, 30_000);
  if (code !== 0 && code !== null) throw new Error(`the stamp writer exited with ${code}`);
  const template = daemon.sample();
  if (!template) throw new Error('daemon latency: no STDOUT event to model the reference on');
  return { daemonMs, template };
}

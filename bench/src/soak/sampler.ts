import { readFileSync } from 'node:fs';
import type { Exposition } from './metrics-scrape.js';
import { sumOf } from './metrics-scrape.js';
import { fdCount, rssMiB } from './proc-probe.js';
import type { IdlePoint, Sample } from './sample.js';

const MiB = 2 ** 20;

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number, ticksPerSecond = 100): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat; f starts at field 3.
  return (Number(f[11]) + Number(f[12])) / ticksPerSecond;
}

export interface SamplerOptions {
  pid: number;
  scrape(): Promise<Exposition>;
  /** Events the workload's readers received so far. */
  eventsReceived(): number;
  /** Called with each sample as it is taken (for progress output). */
  onSample?(s: Sample): void;
  /** A sample that could not be taken; sampling goes on. */
  onError(err: unknown): void;
}

/** What the daemon looks like right now, without the rate fields. */
export async function idlePoint(
  pid: number,
  scrape: () => Promise<Exposition>,
): Promise<IdlePoint> {
  const m = await scrape();
  return {
    fds: fdCount(pid),
    activeHandles: sumOf(m, 'nodejs_active_handles_total'),
    rssMiB: rssMiB(pid),
    heapUsedMiB: sumOf(m, 'nodejs_heap_size_used_bytes') / MiB,
  };
}

/**
 * Takes one sample a second until stopped. Each tick waits for the previous
 * scrape, so a slow daemon stretches the interval rather than piling up
 * requests; rates divide by the measured interval.
 */
export function startSampler(o: SamplerOptions) {
  const samples: Sample[] = [];
  const t0 = performance.now();
  let lastT = t0;
  let lastEvents = o.eventsReceived();
  let lastCpu = cpuSeconds(o.pid);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const take = async () => {
    const m = await o.scrape();
    const now = performance.now();
    const dt = (now - lastT) / 1000;
    const events = o.eventsReceived();
    const cpu = cpuSeconds(o.pid);
    const s: Sample = {
      t: (now - t0) / 1000,
      rssMiB: rssMiB(o.pid),
      fds: fdCount(o.pid),
      heapUsedMiB: sumOf(m, 'nodejs_heap_size_used_bytes') / MiB,
      loopDelayP99Ms: sumOf(m, 'nodejs_eventloop_lag_p99_seconds') * 1000,
      loopDelayMaxMs: sumOf(m, 'nodejs_eventloop_lag_max_seconds') * 1000,
      activeHandles: sumOf(m, 'nodejs_active_handles_total'),
      liveSessions: ['STARTING', 'RUNNING', 'STOPPING'].reduce(
        (n, st) => n + sumOf(m, 'bridge_sessions', `state="${st}"`),
        0,
      ),
      subscribers: sumOf(m, 'bridge_subscribers'),
      eventsPerSec: (events - lastEvents) / dt,
      majorGcs: sumOf(m, 'nodejs_gc_duration_seconds_count', 'kind="major"'),
      cpuPercent: ((cpu - lastCpu) / dt) * 100,
    };
    lastT = now;
    lastEvents = events;
    lastCpu = cpu;
    samples.push(s);
    o.onSample?.(s);
  };

  const tick = () => {
    if (stopped) return;
    inFlight = take()
      .catch((err) => o.onError(err))
      .then(() => {
        if (!stopped) timer = setTimeout(tick, 1000);
      });
  };
  timer = setTimeout(tick, 1000);

  return {
    samples,
    async stop(): Promise<Sample[]> {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
      return samples;
    },
  };
}

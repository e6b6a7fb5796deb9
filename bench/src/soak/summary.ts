import type { IdlePoint, Sample } from './sample.js';

/** The limits a run is judged by; printed with the verdict. */
const THRESHOLDS = {
  /** Least-squares slope of the RSS floor (see `floor`) over the second half of the run. */
  rssSlopeMiBPerMin: 1,
  /**
   * The same for V8's used heap, read just after old-generation collections
   * when the second half had at least `minMajorGcs` of them (else its floor).
   */
  heapSlopeMiBPerMin: 1,
  minMajorGcs: 3,
  /** V8's used heap of the idle daemon after the run, above the idle heap before it. */
  idleHeapGrowthMiB: 10,
  /** Open fds of the idle daemon after the run, above the idle count before it. */
  idleFdGrowth: 5,
  /** Active handles (sockets, timers, pipes) of the idle daemon, same comparison. */
  idleHandleGrowth: 5,
} as const;

/** What the workload and the final checks counted, besides the samples. */
export interface RunCounts {
  sessionsStarted: number;
  eventsReceived: number;
  /** RPC errors the workload did not provoke, keyed "Method CODE". */
  unexpectedErrors: Record<string, number>;
  /** Errors the workload provoked on purpose or that its races allow, same keys. */
  expectedErrors: Record<string, number>;
  /** Sequence problems outside BUFFER_OVERFLOW reports (silent gaps, repeats, bad ranges). */
  seqProblems: number;
  overflowReports: number;
  /** Agent processes (or their process-group members) still alive, and zombies. */
  leftovers: string[];
  /** The daemon's exit code after SIGTERM. */
  daemonExit: number | null;
}

interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface Summary {
  pass: boolean;
  minutes: number;
  thresholds: typeof THRESHOLDS;
  secondHalf: { rssSlopeMiBPerMin: number; heapSlopeMiBPerMin: number; fdSlopePerMin: number };
  idleBefore: IdlePoint;
  idleAfter: IdlePoint;
  checks: Check[];
}

/** Least-squares slope of `y` over `x`; 0 for fewer than two distinct x. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Seconds per window of `floor`. */
const FLOOR_WINDOW_S = 10;

/**
 * The lowest value of each `FLOOR_WINDOW_S` window, at the window's middle.
 * Used heap is a sawtooth between collections and a flood lifts RSS for a
 * moment; what a leak moves is the level they return to. A window holding
 * less than half as many points as the fullest one (the ragged ends) is
 * left out: its minimum would be taken over too few points.
 */
export function floor(
  points: ReadonlyArray<readonly [number, number]>,
): Array<readonly [number, number]> {
  const windows = new Map<number, { min: number; n: number }>();
  for (const [t, v] of points) {
    const w = Math.floor(t / FLOOR_WINDOW_S);
    const cur = windows.get(w) ?? { min: Number.POSITIVE_INFINITY, n: 0 };
    windows.set(w, { min: Math.min(cur.min, v), n: cur.n + 1 });
  }
  const fullest = Math.max(0, ...[...windows.values()].map((x) => x.n));
  return [...windows]
    .filter(([, x]) => x.n * 2 >= fullest)
    .map(([w, x]) => [(w + 0.5) * FLOOR_WINDOW_S, x.min] as const);
}

const secondHalf = (samples: readonly Sample[]) => {
  const end = samples.at(-1)?.t ?? 0;
  return samples.filter((s) => s.t >= end / 2);
};

/** Per-minute slope of one series' floor over the samples from the middle of the run on. */
function secondHalfSlope(samples: readonly Sample[], pick: (s: Sample) => number): number {
  const half = secondHalf(samples).map((s) => [s.t, pick(s)] as const);
  return slope(floor(half).map(([t, v]) => [t / 60, v] as const));
}

/** A drop of at least this share of the used heap between two samples means an old-generation collection. */
const COLLECTION_DROP = 0.25;

/**
 * The used-heap trend of the second half. Between old-generation collections
 * the heap only grows, often for a minute or more, so even the floor of a
 * healthy daemon climbs; a sample taken within a second after such a
 * collection is close to the live heap. V8 reports many of them as
 * incremental rather than major, so a steep drop of the heap counts as one
 * too. With too few of those, the floor.
 */
function heapTrend(samples: readonly Sample[]): { slope: number; basis: string } {
  const half = secondHalf(samples);
  const afterGc = half.filter((s, i) => {
    const prev = half[i - 1];
    if (!prev) return false;
    return s.majorGcs > prev.majorGcs || s.heapUsedMiB <= prev.heapUsedMiB * (1 - COLLECTION_DROP);
  });
  if (afterGc.length >= THRESHOLDS.minMajorGcs) {
    return {
      slope: slope(afterGc.map((s) => [s.t / 60, s.heapUsedMiB] as const)),
      basis: `${afterGc.length} samples just after an old-generation GC`,
    };
  }
  return {
    slope: secondHalfSlope(samples, (s) => s.heapUsedMiB),
    basis: `10 s floors; only ${afterGc.length} old-generation GCs seen`,
  };
}

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));

const total = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
const list = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ');

export function summarize(
  samples: readonly Sample[],
  idleBefore: IdlePoint,
  idleAfter: IdlePoint,
  counts: RunCounts,
): Summary {
  const minutes = (samples.at(-1)?.t ?? 0) / 60;
  const rss = secondHalfSlope(samples, (s) => s.rssMiB);
  const { slope: heap, basis: heapBasis } = heapTrend(samples);
  const fd = secondHalfSlope(samples, (s) => s.fds);
  const T = THRESHOLDS;
  const unexpected = total(counts.unexpectedErrors);
  const checks: Check[] = [
    {
      name: 'workload ran',
      pass: counts.sessionsStarted > 0 && counts.eventsReceived > 0 && samples.length >= 2,
      detail: `${counts.sessionsStarted} sessions started, ${counts.eventsReceived} events received, ${samples.length} samples`,
    },
    {
      name: 'no unexpected RPC errors',
      pass: unexpected === 0,
      detail:
        unexpected === 0
          ? `none (expected ones: ${list(counts.expectedErrors) || 'none'})`
          : list(counts.unexpectedErrors),
    },
    {
      name: 'no seq gap outside BUFFER_OVERFLOW',
      pass: counts.seqProblems === 0,
      detail: `${counts.seqProblems} problems; ${counts.overflowReports} overflow reports`,
    },
    {
      name: 'no leftover processes',
      pass: counts.leftovers.length === 0,
      detail: counts.leftovers.length === 0 ? 'none' : counts.leftovers.slice(0, 10).join('; '),
    },
    {
      name: 'daemon exited 0 on SIGTERM',
      pass: counts.daemonExit === 0,
      detail: `exit ${counts.daemonExit}`,
    },
    {
      name: `second-half RSS floor slope ≤ ${T.rssSlopeMiBPerMin} MiB/min`,
      pass: rss <= T.rssSlopeMiBPerMin,
      detail: `${fmt(rss)} MiB/min`,
    },
    {
      name: `second-half heap slope ≤ ${T.heapSlopeMiBPerMin} MiB/min`,
      pass: heap <= T.heapSlopeMiBPerMin,
      detail: `${fmt(heap)} MiB/min (${heapBasis})`,
    },
    {
      name: `idle heap after ≤ before + ${T.idleHeapGrowthMiB} MiB`,
      pass: idleAfter.heapUsedMiB <= idleBefore.heapUsedMiB + T.idleHeapGrowthMiB,
      detail: `${fmt(idleBefore.heapUsedMiB)} → ${fmt(idleAfter.heapUsedMiB)} MiB`,
    },
    {
      name: `idle fds after ≤ before + ${T.idleFdGrowth}`,
      pass: idleAfter.fds <= idleBefore.fds + T.idleFdGrowth,
      detail: `${idleBefore.fds} → ${idleAfter.fds} (second-half slope under load ${fmt(fd)}/min)`,
    },
    {
      name: `idle active handles after ≤ before + ${T.idleHandleGrowth}`,
      pass: idleAfter.activeHandles <= idleBefore.activeHandles + T.idleHandleGrowth,
      detail: `${idleBefore.activeHandles} → ${idleAfter.activeHandles}`,
    },
  ];
  return {
    pass: checks.every((c) => c.pass),
    minutes,
    thresholds: T,
    secondHalf: { rssSlopeMiBPerMin: rss, heapSlopeMiBPerMin: heap, fdSlopePerMin: fd },
    idleBefore,
    idleAfter,
    checks,
  };
}

/** The verdict as printed: one line per check, then PASS or FAIL. */
export function formatSummary(s: Summary): string {
  const lines = s.checks.map((c) => `${c.pass ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  lines.push(`${s.pass ? 'PASS' : 'FAIL'} (${s.minutes.toFixed(2)} min)`);
  return lines.join('\n');
}

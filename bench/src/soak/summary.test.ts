import { describe, expect, it } from 'vitest';
import type { Sample } from './sample.js';
import { floor, formatSummary, type RunCounts, slope, summarize } from './summary.js';

/** Three minutes of samples: a sawtooth around a level, plus `leakPerMin` MiB/min of growth. */
const run = (leakPerMin: number): Sample[] =>
  Array.from({ length: 180 }, (_, i) => {
    const t = i + 1;
    const wobble = ((i % 10) - 4.5) * 0.8;
    return {
      t,
      rssMiB: 120 + wobble + (leakPerMin * t) / 60,
      fds: 90 + (i % 3),
      heapUsedMiB: 40 + wobble + (leakPerMin * t) / 60,
      loopDelayP99Ms: 12,
      loopDelayMaxMs: 30,
      activeHandles: 100,
      liveSessions: 30,
      subscribers: 45,
      eventsPerSec: 900,
      cpuPercent: 40,
      majorGcs: 0,
    };
  });

const idle = { fds: 25, activeHandles: 8, rssMiB: 90, heapUsedMiB: 20 };

const clean = (): RunCounts => ({
  sessionsStarted: 400,
  eventsReceived: 100_000,
  unexpectedErrors: {},
  expectedErrors: { 'SendInput FAILED_PRECONDITION': 3 },
  seqProblems: 0,
  overflowReports: 12,
  leftovers: [],
  daemonExit: 0,
});

const failed = (s: ReturnType<typeof summarize>) =>
  s.checks.filter((c) => !c.pass).map((c) => c.name);

describe('slope', () => {
  it('is the least-squares slope', () => {
    expect(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
    ).toBeCloseTo(2);
    expect(
      slope([
        [0, 4],
        [1, 4],
        [2, 4],
      ]),
    ).toBe(0);
    expect(slope([[1, 4]])).toBe(0);
  });
});

describe('floor', () => {
  it('keeps the lowest value of each 10 s window, without a ragged end', () => {
    expect(
      floor([
        [1, 5],
        [4, 3],
        [9, 8],
        [12, 7],
        [15, 9],
      ]),
    ).toEqual([
      [5, 3],
      [15, 7],
    ]);
  });
});

describe('summarize', () => {
  it('passes a flat run with no errors, gaps or leftovers', () => {
    const s = summarize(run(0), idle, { ...idle, fds: 27 }, clean());
    expect(failed(s)).toEqual([]);
    expect(s.pass).toBe(true);
    expect(Math.abs(s.secondHalf.rssSlopeMiBPerMin)).toBeLessThan(0.5);
    expect(formatSummary(s)).toMatch(/PASS \(3\.00 min\)$/);
  });

  it('fails a run whose RSS and heap keep growing', () => {
    const s = summarize(run(3), idle, idle, clean());
    expect(s.pass).toBe(false);
    expect(s.secondHalf.rssSlopeMiBPerMin).toBeCloseTo(3, 0);
    expect(failed(s)).toEqual([
      'second-half RSS floor slope ≤ 1 MiB/min',
      'second-half heap slope ≤ 1 MiB/min',
    ]);
  });

  it('judges the floor, not the peaks: brief spikes in the second half pass', () => {
    const samples = run(0).map((x) => (x.t % 30 === 0 ? { ...x, rssMiB: x.rssMiB + 80 } : x));
    expect(summarize(samples, idle, idle, clean()).pass).toBe(true);
  });

  // The old generation climbs between collections every 30 s, each of which
  // brings it back to 40 MiB (healthy) or to a level rising 3 MiB/min (leak).
  const sawtooth = (leakPerMin: number, climbPerMin: number, counted: boolean) =>
    run(0).map((x) => {
      const since = x.t % 30;
      const base = 40 + (leakPerMin * x.t) / 60;
      return {
        ...x,
        majorGcs: counted ? Math.floor(x.t / 30) : 0,
        heapUsedMiB: base + (climbPerMin * since) / 60,
      };
    });
  const heapDetail = (s: ReturnType<typeof summarize>) =>
    s.checks.find((c) => c.name.startsWith('second-half heap'))?.detail;

  it('judges the heap just after old-generation collections, counted or seen as drops', () => {
    for (const [climb, counted] of [
      [20, true],
      [60, false],
    ] as const) {
      const healthy = summarize(sawtooth(0, climb, counted), idle, idle, clean());
      expect(failed(healthy)).toEqual([]);
      expect(heapDetail(healthy)).toMatch(/3 samples just after an old-generation GC/);
      const leaking = summarize(sawtooth(3, climb, counted), idle, idle, clean());
      expect(failed(leaking)).toEqual(['second-half heap slope ≤ 1 MiB/min']);
      expect(leaking.secondHalf.heapSlopeMiBPerMin).toBeCloseTo(3, 0);
    }
  });

  it('falls back to the floor when no collection is seen', () => {
    const s = summarize(sawtooth(0, 10, false), idle, idle, clean());
    expect(heapDetail(s)).toMatch(/10 s floors; only 0 old-generation GCs seen/);
  });

  it('ignores growth confined to the first half (warm-up)', () => {
    const samples = run(0).map((x) => ({ ...x, rssMiB: x.rssMiB + Math.min(x.t, 60) / 2 }));
    expect(summarize(samples, idle, idle, clean()).pass).toBe(true);
  });

  it('fails on leaked fds and handles, errors, gaps, leftovers and a bad exit', () => {
    const s = summarize(
      run(0),
      idle,
      { fds: 40, activeHandles: 30, rssMiB: 90, heapUsedMiB: 45 },
      {
        ...clean(),
        unexpectedErrors: { 'StartSession RESOURCE_EXHAUSTED': 1 },
        seqProblems: 2,
        leftovers: ['pid 4242 (process group 4242) still alive'],
        daemonExit: 1,
      },
    );
    expect(failed(s)).toEqual([
      'no unexpected RPC errors',
      'no seq gap outside BUFFER_OVERFLOW',
      'no leftover processes',
      'daemon exited 0 on SIGTERM',
      'idle heap after ≤ before + 10 MiB',
      'idle fds after ≤ before + 5',
      'idle active handles after ≤ before + 5',
    ]);
    expect(formatSummary(s)).toContain(
      'FAIL no unexpected RPC errors: StartSession RESOURCE_EXHAUSTED ×1',
    );
  });

  it('fails a run that did nothing', () => {
    const s = summarize([], idle, idle, { ...clean(), sessionsStarted: 0, eventsReceived: 0 });
    expect(failed(s)).toEqual(['workload ran']);
  });
});

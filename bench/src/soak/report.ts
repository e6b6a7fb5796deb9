import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChartSeries, chartSvg } from './chart-svg.js';
import type { Sample } from './sample.js';
import type { Summary } from './summary.js';

const series = (
  samples: readonly Sample[],
  title: string,
  unit: string,
  pick: (s: Sample) => number,
): ChartSeries => ({ title, unit, points: samples.map((s) => [s.t / 60, pick(s)] as const) });

/** The panels of the chart, one per series. */
export function soakChart(samples: readonly Sample[], summary: Summary, title: string): string {
  return chartSvg({
    title,
    subtitle:
      `${summary.pass ? 'PASS' : 'FAIL'}: second-half slopes RSS floor ${summary.secondHalf.rssSlopeMiBPerMin.toFixed(2)}, ` +
      `heap ${summary.secondHalf.heapSlopeMiBPerMin.toFixed(2)} MiB/min; idle after a full GC: ` +
      `heap ${summary.idleBefore.heapUsedMiB.toFixed(1)} → ${summary.idleAfter.heapUsedMiB.toFixed(1)} MiB, ` +
      `fds ${summary.idleBefore.fds} → ${summary.idleAfter.fds}`,
    series: [
      series(samples, 'daemon RSS', 'MiB', (s) => s.rssMiB),
      series(samples, 'V8 heap used', 'MiB', (s) => s.heapUsedMiB),
      series(samples, 'open fds', 'count', (s) => s.fds),
      series(samples, 'event-loop delay p99 per second', 'ms', (s) => s.loopDelayP99Ms),
      series(samples, 'events received by clients', 'events/s', (s) => s.eventsPerSec),
      series(samples, 'live sessions', 'count', (s) => s.liveSessions),
      series(samples, 'subscribers', 'count', (s) => s.subscribers),
      series(samples, 'daemon CPU', '% of one core', (s) => s.cpuPercent),
    ],
  });
}

/** Writes soak-<stamp>.json and soak-<stamp>.svg into `dir`; returns their paths. */
export function writeResults(
  dir: string,
  stamp: string,
  json: unknown,
  svg: string,
): { json: string; svg: string } {
  mkdirSync(dir, { recursive: true });
  const paths = { json: join(dir, `soak-${stamp}.json`), svg: join(dir, `soak-${stamp}.svg`) };
  writeFileSync(paths.json, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(paths.svg, svg);
  return paths;
}

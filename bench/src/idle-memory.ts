import { AGENTS, startBenchBridge } from './bench-bridge.js';
import { inFlight } from './in-flight.js';
import { jsMemoryBytes } from './metrics.js';
import type { Row } from './row.js';
import { rssKiB } from './rss.js';
import type { Sizes } from './sizes.js';

/**
 * B6, idle sessions: the daemon's RSS and used-heap growth per session over
 * `idleSessions` sessions of `cat` waiting on its stdin, with a small and a
 * large ring (a ring must cost what it holds, not what it could hold).
 *
 * Measured from a daemon already holding half as many sessions: starting
 * them touches the pages of V8's young generation (two semi-spaces of up to
 * 16 MiB) for the first time, a one-off step of several MiB that lands in
 * whichever sessions happen to run while it happens. Counted from a cold
 * daemon it was a third of the figure and moved with unrelated start-up
 * allocations (docs/performance.md, "After the refactor of issue 23").
 */
export async function idleMemoryRows(s: Sizes): Promise<Row[]> {
  const rows: Row[] = [];
  const warmup = Math.ceil(s.idleSessions / 2);
  for (const ring of [10_000, 200_000]) {
    const bridge = await startBenchBridge({
      config: {
        metrics: { listen: '127.0.0.1:0' },
        sessions: {
          event_buffer_size: ring,
          max_global: warmup + s.idleSessions + 1,
          max_per_project: warmup + s.idleSessions + 1,
        },
      },
    });
    try {
      const { pid, metricsPort } = bridge.daemon;
      await inFlight(warmup, 8, () => bridge.start(AGENTS.idle)); // not counted
      const rss0 = rssKiB(pid);
      const js0 = await jsMemoryBytes(metricsPort, bridge.pki);
      await inFlight(s.idleSessions, 8, () => bridge.start(AGENTS.idle));
      const rss = (rssKiB(pid) - rss0) / s.idleSessions;
      const js = await jsMemoryBytes(metricsPort, bridge.pki);
      const held = js.heap + js.external - (js0.heap + js0.external);
      for (const [what, kib] of [
        ['RSS', rss],
        ['heap + external', held / 1024 / s.idleSessions],
      ] as const) {
        rows.push({
          id: 'B6',
          name: `idle session (ring ${ring}): daemon ${what} per session`,
          value: kib,
          unit: 'KiB',
          better: 'lower',
          target: { max: 64, on: 'value' },
          note: `over ${s.idleSessions} sessions, after ${warmup}`,
        });
      }
    } finally {
      await bridge.close();
    }
  }
  return rows;
}

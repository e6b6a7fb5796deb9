import { startBridge, waitFor } from '@agent-bridge/harness';
import { against, type Row } from './row.js';
import { rssKiB } from './rss.js';
import type { Sizes } from './sizes.js';

/**
 * How much the daemon's resident memory grows while an agent floods `lines`
 * lines of `width` bytes, with one reader attached that never reads
 * (`stalled`) or with no reader at all. A fresh daemon with the default
 * ring each time, so one measurement does not inherit the other's heap.
 */
async function floodRssGrowthKiB(lines: number, width: number, stalled: boolean): Promise<number> {
  const bridge = await startBridge({
    project: 'bench',
    config: { logging: { level: 'warn' } },
    fakeProviders: { flood: ['flood', String(width)] },
  });
  try {
    const pid = bridge.daemon.pid;
    const rss0 = rssKiB(pid);
    const { sessionId } = await bridge.sessions().start('flood');
    const stream = stalled ? bridge.stream({ sessionId, afterSeq: 0n }) : undefined;
    stream?.on('error', () => undefined); // CANCELLED when cancelled below
    stream?.pause();
    await waitFor(
      `the flood to pass seq ${lines}`,
      async () => Number((await bridge.call((c) => c.getSession, { sessionId })).lastSeq) > lines,
      10 * 60_000,
      200,
    );
    const grown = rssKiB(pid) - rss0;
    stream?.cancel();
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
    return grown;
  } finally {
    await bridge.close();
  }
}

/**
 * A reader that never reads must not make the daemon hold the flood for it:
 * the daemon's RSS growth during an N-line flood with such a reader, against
 * the same flood with no reader at all.
 */
export async function floodRows(s: Sizes): Promise<Row[]> {
  const none = await floodRssGrowthKiB(s.events, s.width, false);
  const stalled = await floodRssGrowthKiB(s.events, s.width, true);
  return [
    against({
      name: `daemon RSS growth, ${s.events}-line flood, stalled reader`,
      value: stalled,
      unit: 'KiB',
      better: 'lower',
      ref: { name: 'same flood, no reader', value: none, unit: 'KiB', ceiling: false },
    }),
  ];
}

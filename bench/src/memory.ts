import { readFileSync } from 'node:fs';
import { startBridge, waitFor } from '@agent-bridge/tests/harness';

/** Resident set size of `pid` in KiB. */
function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

/**
 * How much the daemon's resident memory grows while an agent floods `lines`
 * lines of `width` bytes, with one reader attached that never reads
 * (`stalled`) or with no reader at all. A fresh daemon with the default
 * ring each time, so one measurement does not inherit the other's heap.
 */
export async function floodRssGrowthKiB(
  lines: number,
  width: number,
  stalled: boolean,
): Promise<number> {
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

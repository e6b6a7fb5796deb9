import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectGarbage, heapSnapshotFlags } from '@agent-bridge/harness';
import { AGENTS, type BenchBridge, linesFile, startBenchBridge } from './bench-bridge.js';
import { jsMemoryBytes } from './metrics.js';
import { against, type Row } from './row.js';
import { rssKiB } from './rss.js';
import type { Sizes } from './sizes.js';

const MIB = 2 ** 20;

/**
 * B6, full rings: sessions whose agent is `cat` of a file of `ringEvents`
 * lines, each ring exactly `ringEvents` long, so every ring ends full of
 * lines; what the daemon holds for them against their payload (lines ×
 * width). Two daemons: one for RSS growth, and one for what its JavaScript
 * holds (used heap plus the Buffers outside it, where rings keep their
 * encoded events) after a full collection, before and after. Making the
 * daemon collect (a heap snapshot) leaves its RSS higher for good, hence two.
 */
export async function ringMemoryRows(s: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-ring-'));
  const file = linesFile(dir, s.ringEvents, s.width);
  const start = (collectable: boolean) =>
    startBenchBridge({
      file,
      ...(collectable ? { nodeOptions: heapSnapshotFlags } : {}),
      config: {
        metrics: { listen: '127.0.0.1:0' },
        sessions: {
          event_buffer_size: s.ringEvents,
          event_buffer_bytes: '256MiB',
          max_global: s.ringSessions + 2,
          max_per_project: s.ringSessions + 2,
        },
      },
    });
  const fill = async (bridge: BenchBridge) => {
    for (let i = 0; i < s.ringSessions; i++) {
      const id = await bridge.start(AGENTS.cat);
      const got = await bridge.finished(id, 60_000);
      const held = Number(got.lastSeq - got.oldestSeq) + 1;
      if (held !== s.ringEvents) throw new Error(`a ring holds ${held}, not ${s.ringEvents}`);
    }
  };
  /** What the daemon's JavaScript holds after a full collection. */
  const live = async (bridge: BenchBridge) => {
    await collectGarbage(bridge.daemon.pid, bridge.scratch);
    const js = await jsMemoryBytes(bridge.daemon.metricsPort, bridge.pki);
    return js.heap + js.external;
  };
  try {
    let rss = 0;
    const forRss = await start(false);
    try {
      // The first session loads what sessions need; it is not counted.
      await forRss.finished(await forRss.start(AGENTS.cat), 60_000);
      const rss0 = rssKiB(forRss.daemon.pid) * 1024;
      await fill(forRss);
      rss = rssKiB(forRss.daemon.pid) * 1024 - rss0;
    } finally {
      await forRss.close();
    }
    let held = 0;
    const forHeap = await start(true);
    try {
      await forHeap.finished(await forHeap.start(AGENTS.cat), 60_000);
      const before = await live(forHeap);
      await fill(forHeap);
      held = (await live(forHeap)) - before;
    } finally {
      await forHeap.close();
    }
    const payload = s.ringSessions * s.ringEvents * s.width;
    const ref = {
      name: `payload, ${s.ringSessions} x ${s.ringEvents} x ${s.width} B`,
      value: payload / MIB,
      unit: 'MiB',
      ceiling: false,
    };
    const row = (what: string, grown: number) =>
      against({
        id: 'B6',
        name: `full rings: daemon ${what} growth`,
        value: grown / MIB,
        unit: 'MiB',
        better: 'lower',
        ref,
        target: { max: 1.3, on: 'ratio' },
      });
    return [row('RSS', rss), row('heap + external after a full GC', held)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

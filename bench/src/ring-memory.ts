import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, linesFile, startBenchBridge } from './bench-bridge.js';
import { jsMemoryBytes } from './metrics.js';
import { against, type Row } from './row.js';
import { rssKiB } from './rss.js';
import type { Sizes } from './sizes.js';

const MIB = 2 ** 20;

/**
 * B6, full rings: sessions whose agent is `cat` of a file of `ringEvents`
 * lines, each ring exactly `ringEvents` long, so every ring ends full of
 * lines. The daemon's RSS growth, and the growth of what its JavaScript
 * holds (used heap plus the Buffers outside it, where rings keep their
 * encoded events), against the payload it holds (lines × width).
 */
export async function ringMemoryRows(s: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-ring-'));
  const bridge = await startBenchBridge({
    file: linesFile(dir, s.ringEvents, s.width),
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
  try {
    const { pid, metricsPort } = bridge.daemon;
    // The first session loads what sessions need; it is not counted.
    await bridge.finished(await bridge.start(AGENTS.cat), 60_000);
    const rss0 = rssKiB(pid) * 1024;
    const js0 = await jsMemoryBytes(metricsPort, bridge.pki);
    for (let i = 0; i < s.ringSessions; i++) {
      const id = await bridge.start(AGENTS.cat);
      const got = await bridge.finished(id, 60_000);
      const held = Number(got.lastSeq - got.oldestSeq) + 1;
      if (held !== s.ringEvents) throw new Error(`a ring holds ${held}, not ${s.ringEvents}`);
    }
    const rss = rssKiB(pid) * 1024 - rss0;
    const js = await jsMemoryBytes(metricsPort, bridge.pki);
    const held = js.heap + js.external - (js0.heap + js0.external);
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
    return [row('RSS', rss), row('heap + external (Buffers)', held)];
  } finally {
    await bridge.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

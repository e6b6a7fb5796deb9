import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonFixture } from './fixture.js';
import { scrapeMetrics } from './metrics-scrape.js';
import { waitFor } from './processes.js';

/** What the daemon's JavaScript keeps alive, in bytes, after a full collection. */
export interface LiveMemory {
  /** The used heap. */
  heap: number;
  /** Memory outside the heap owned by JavaScript objects (Buffers: the rings keep their events there). */
  external: number;
  /** heap + external. */
  total: number;
}

/**
 * Reads the memory the daemon still holds after a full garbage collection.
 * Garbage not yet collected hides what is live, so this makes the daemon
 * collect first: it must run with NODE_OPTIONS
 * `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<bridge.scratch>` and a
 * metrics listener. A heap snapshot starts with a full collection and is
 * written on the daemon's event loop, so a scrape answered after the file
 * appears reads what survived it. The snapshot is deleted afterwards.
 *
 * Writing a snapshot leaves the daemon's RSS higher for good: read RSS
 * before the first call.
 */
export async function liveMemoryBytes(bridge: DaemonFixture): Promise<LiveMemory> {
  const { daemon, scratch, pki } = bridge;
  if (daemon.metricsPort === undefined) {
    throw new Error('liveMemoryBytes: the daemon has no metrics listener (config metrics.listen)');
  }
  const snapshots = () => readdirSync(scratch).filter((f) => f.endsWith('.heapsnapshot'));
  const before = snapshots().length;
  process.kill(daemon.pid, 'SIGUSR2');
  await waitFor(
    `the daemon to write a heap snapshot into ${scratch} (is it started with --heapsnapshot-signal=SIGUSR2 --diagnostic-dir there?)`,
    () => snapshots().length > before,
    30_000,
  );
  const m = await scrapeMetrics(daemon.metricsPort, pki.ca.certPem, pki.client);
  for (const f of snapshots()) rmSync(join(scratch, f), { force: true });
  const heap = m.get('nodejs_heap_size_used_bytes');
  const external = m.get('nodejs_external_memory_bytes');
  if (heap === undefined || external === undefined) {
    throw new Error(
      'the daemon metrics lack nodejs_heap_size_used_bytes or nodejs_external_memory_bytes',
    );
  }
  return { heap, external, total: heap + external };
}

import { collectGarbage } from './collect-garbage.js';
import type { DaemonFixture } from './fixture.js';
import { scrapeMetrics } from './metrics-scrape.js';

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
 * collect first (see collectGarbage): it must run with the flags of
 * `heapSnapshotFlags(bridge.scratch)` (in NODE_OPTIONS) and a metrics
 * listener.
 *
 * Writing a snapshot leaves the daemon's RSS higher for good: read RSS
 * before the first call.
 */
export async function liveMemoryBytes(bridge: DaemonFixture): Promise<LiveMemory> {
  const { daemon, scratch, pki } = bridge;
  if (daemon.metricsPort === undefined) {
    throw new Error('liveMemoryBytes: the daemon has no metrics listener (config metrics.listen)');
  }
  await collectGarbage(daemon.pid, scratch);
  const m = await scrapeMetrics(daemon.metricsPort, pki.ca.certPem, pki.client);
  const heap = m.get('nodejs_heap_size_used_bytes');
  const external = m.get('nodejs_external_memory_bytes');
  if (heap === undefined || external === undefined) {
    throw new Error(
      'the daemon metrics lack nodejs_heap_size_used_bytes or nodejs_external_memory_bytes',
    );
  }
  return { heap, external, total: heap + external };
}

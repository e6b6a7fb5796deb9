import { scrapeMetrics, type TestPki } from '@agent-bridge/harness';

/**
 * What the daemon's JavaScript holds, in bytes, as its metrics report it:
 * the used heap, and the memory outside it that JavaScript objects own
 * (Buffers: the rings keep their events there).
 */
export async function jsMemoryBytes(
  port: number | undefined,
  pki: TestPki,
): Promise<{ heap: number; external: number }> {
  if (port === undefined) throw new Error('the daemon reported no metrics port');
  const m = await scrapeMetrics(port, pki.ca.certPem, pki.client);
  const heap = m.get('nodejs_heap_size_used_bytes');
  const external = m.get('nodejs_external_memory_bytes');
  if (heap === undefined || external === undefined) {
    throw new Error(
      'the daemon metrics lack nodejs_heap_size_used_bytes or nodejs_external_memory_bytes',
    );
  }
  return { heap, external };
}

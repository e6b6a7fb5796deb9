import { Agent } from 'node:https';
import { scrapeMetrics, type TestPki } from '@agent-bridge/harness';

type CertAndKey = TestPki['client'];

/** The daemon's Prometheus exposition, sample key (`name{labels}`) → value. */
export type Exposition = Map<string, number>;

/** The sum of every sample of `name` whose labels include each of `labels` (e.g. `state="RUNNING"`). */
export function sumOf(m: Exposition, name: string, ...labels: string[]): number {
  let n = 0;
  for (const [key, v] of m) {
    const brace = key.indexOf('{');
    if ((brace < 0 ? key : key.slice(0, brace)) !== name) continue;
    if (labels.every((l) => key.includes(l))) n += v;
  }
  return n;
}

/**
 * Scrapes https://127.0.0.1:<port>/metrics over mutual TLS on one kept-alive
 * connection, so a scrape per second costs no handshake.
 */
export function metricsScraper(port: number, caPem: string, client: CertAndKey) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const scrape = (): Promise<Exposition> => scrapeMetrics(port, caPem, client, agent);
  return { scrape, close: () => agent.destroy() };
}

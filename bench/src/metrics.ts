import { request } from 'node:https';
import type { TestPki } from '@agent-bridge/tests/harness';
import { within } from '@agent-bridge/tests/harness';

/**
 * One scrape of the daemon's Prometheus metrics over mutual TLS; the value
 * of each unlabelled sample by name.
 */
async function scrapeMetrics(port: number, pki: TestPki): Promise<Map<string, number>> {
  const body = await within(
    'a scrape of the daemon metrics',
    new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/metrics',
          ca: pki.ca.certPem,
          servername: 'localhost',
          cert: pki.client.certPem,
          key: pki.client.keyPem,
          agent: false,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
          });
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(text)
              : reject(new Error(`metrics: HTTP ${res.statusCode}`)),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    }),
  );
  const samples = new Map<string, number>();
  for (const line of body.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*) (\S+)$/.exec(line);
    if (m) samples.set(m[1]!, Number(m[2]));
  }
  return samples;
}

/** The daemon's used heap in bytes, as its metrics report it. */
export async function heapUsedBytes(port: number | undefined, pki: TestPki): Promise<number> {
  if (port === undefined) throw new Error('the daemon reported no metrics port');
  const v = (await scrapeMetrics(port, pki)).get('nodejs_heap_size_used_bytes');
  if (v === undefined) throw new Error('the daemon metrics have no nodejs_heap_size_used_bytes');
  return v;
}

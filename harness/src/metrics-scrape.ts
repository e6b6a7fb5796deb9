import { type Agent, request } from 'node:https';
import type { CertAndKey } from '@agent-bridge/pki';
import { within } from '@agent-bridge/waits';

/** One response of the metrics listener. */
export interface Scrape {
  status: number | undefined;
  contentType: string | undefined;
  body: string;
}

/**
 * A scrape that failed, with the local port its connection used (0 when it
 * never connected): the listener's audit record names that peer.
 */
export class ScrapeFailed extends Error {
  constructor(
    readonly localPort: number,
    cause: Error,
  ) {
    super(cause.message, { cause });
    this.name = 'ScrapeFailed';
  }
}

/**
 * GET https://127.0.0.1:<port><path> with `client`'s certificate (none when
 * undefined); a new connection each time unless a keep-alive `agent` is given.
 */
export function scrape(
  port: number,
  caPem: string,
  client?: CertAndKey,
  path = '/metrics',
  agent?: Agent,
): Promise<Scrape> {
  return within(
    `a scrape of ${path}`,
    new Promise<Scrape>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          ca: caPem,
          servername: 'localhost',
          ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
          agent: agent ?? false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            body += d;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode, contentType: res.headers['content-type'], body }),
          );
          res.on('error', reject);
        },
      );
      let localPort = 0;
      req.on('socket', (socket) =>
        socket.once('connect', () => {
          localPort = socket.localPort ?? 0;
        }),
      );
      req.on('error', (err) => reject(new ScrapeFailed(localPort, err)));
      req.end();
    }),
  );
}

/** Samples of the exposition: `name{labels} value` lines, each line checked against the format. */
export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const sample =
    /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (\S+)$/;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = sample.exec(line);
    if (!m) throw new Error(`not a Prometheus exposition line: ${JSON.stringify(line)}`);
    const value = Number(m[3] === '+Inf' ? Number.POSITIVE_INFINITY : m[3]);
    // prom-client writes NaN as "Nan"; Prometheus reads either spelling.
    if (Number.isNaN(value) && m[3]?.toLowerCase() !== 'nan')
      throw new Error(`bad value in ${line}`);
    samples.set(`${m[1]}${m[2] ?? ''}`, value);
  }
  return samples;
}

/** The samples of the daemon's metrics listener on `port`, scraped with `client`'s certificate. */
export async function scrapeMetrics(
  port: number,
  caPem: string,
  client: CertAndKey,
  agent?: Agent,
): Promise<Map<string, number>> {
  const res = await scrape(port, caPem, client, '/metrics', agent);
  if (res.status !== 200) throw new Error(`metrics scrape answered ${res.status}: ${res.body}`);
  return parseExposition(res.body);
}

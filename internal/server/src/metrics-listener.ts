import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { leafPolicyRefusal } from './handshake-policy.js';
import { bind } from './private/bind.js';
import type { TlsMaterial } from './tls-material.js';

/** What the metrics endpoint serves; the server does not know how it is made. */
export interface MetricsSource {
  render(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsListener {
  readonly port: number;
  /** New handshakes use `material`; open connections (scrapers reconnect) are closed. */
  apply(material: TlsMaterial): void;
  close(): Promise<void>;
}

const PATH = '/metrics';

/**
 * GET /metrics over HTTPS with mutual TLS: TLS 1.3, the daemon's
 * certificate, a client certificate from the trust bundle required. Unlike
 * the gRPC listener, Node itself refuses unverified clients
 * (rejectUnauthorized): a refused scrape needs no audit record with the
 * peer's certificate, and the client gets a TLS alert instead of an HTTP
 * answer. The leaf rules of the gRPC port (clientAuth, not a CA) apply too.
 */
export async function startMetricsListener(opts: {
  listen: string;
  material: TlsMaterial;
  handshakeTimeoutMs: number;
  source: MetricsSource;
  logger: Logger;
}): Promise<MetricsListener> {
  const { logger } = opts;
  const server: Server = createServer(
    {
      ...opts.material.options,
      requestCert: true,
      rejectUnauthorized: true,
      handshakeTimeout: opts.handshakeTimeoutMs,
    },
    (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== PATH) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`not found; metrics are at ${PATH}\n`);
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
        return;
      }
      opts.source.render().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        (err) => {
          logger.error({ err }, 'cannot render the metrics');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('cannot render the metrics\n');
        },
      );
    },
  );
  server.on('secureConnection', (socket: TLSSocket) => {
    const leaf = socket.getPeerX509Certificate();
    const refusal = leaf ? leafPolicyRefusal(leaf) : 'no_client_certificate';
    if (refusal) {
      logger.warn({ reason: refusal, peer: socket.remoteAddress }, 'metrics connection refused');
      socket.destroy();
    }
  });
  server.on('tlsClientError', (err) => logger.debug({ err }, 'metrics TLS handshake refused'));
  const port = await bind(server, opts.listen, 'metrics.listen', logger, 'metrics listener');
  return {
    port,
    apply(material) {
      server.setSecureContext(material.options);
      server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

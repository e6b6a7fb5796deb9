import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Audit } from '@agent-bridge/bridge';
import type { Logger } from 'pino';
import { handshakeErrorReason, leafPolicyRefusal, unverifiedReason } from './handshake-policy.js';
import { bind } from './private/bind.js';
import { createHandshakeRefusals } from './private/handshake-refusals.js';
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
 * certificate, a client certificate from the trust bundle required, and
 * the leaf rules of the gRPC port (clientAuth, not a CA). Like the gRPC
 * listener, it decides after the handshake (Node is told not to reject
 * unverified clients itself, which would drop them before anyone sees the
 * certificate) so that every refusal is audited as the gRPC port's are:
 * a `tls` record with the peer and the certificate, its detail saying
 * "metrics listener". A refused client sees its connection closed.
 */
export async function startMetricsListener(opts: {
  listen: string;
  material: TlsMaterial;
  handshakeTimeoutMs: number;
  /** Refused handshakes audited per peer address and minute (default 20). */
  refusalsPerPeer?: number;
  source: MetricsSource;
  audit: Audit;
  logger: Logger;
}): Promise<MetricsListener> {
  const { logger } = opts;
  let material = opts.material;
  const refusals = createHandshakeRefusals({
    audit: opts.audit,
    perPeer: opts.refusalsPerPeer ?? 20,
    listener: 'metrics listener',
  });
  const server: Server = createServer(
    {
      ...opts.material.options,
      requestCert: true,
      rejectUnauthorized: false,
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
  // Runs before the request handler sees the socket: a refused one never gets an answer.
  server.on('secureConnection', (socket: TLSSocket) => {
    try {
      const detailed = socket.getPeerCertificate(true);
      if (!socket.authorized) {
        const code = socket.authorizationError as unknown as string | null;
        refusals.refuse(socket, unverifiedReason(code, detailed, material.bundle), String(code));
        return;
      }
      const leaf = socket.getPeerX509Certificate();
      const policy = leaf ? leafPolicyRefusal(leaf) : 'no_client_certificate';
      if (policy) refusals.refuse(socket, policy, `subject ${leaf?.subject.replace(/\n/g, ', ')}`);
    } catch (err) {
      socket.destroy();
      logger.error({ err }, 'metrics connection check failed; connection closed');
    }
  });
  server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
    try {
      refusals.refuse(socket, handshakeErrorReason(err), err.code ?? err.message);
    } catch {
      socket.destroy();
    }
  });
  const port = await bind(server, opts.listen, 'metrics.listen', logger, 'metrics listener');
  return {
    port,
    apply(next) {
      material = next;
      server.setSecureContext(next.options);
      server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        refusals.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

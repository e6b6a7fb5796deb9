import type { X509Certificate } from 'node:crypto';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Audit, AuditIdentity } from '@agent-bridge/bridge';
import { leadsToBundle, revokedInChain } from '@agent-bridge/pki';
import type { Logger } from 'pino';
import { handshakeErrorReason, leafPolicyRefusal, unverifiedReason } from './handshake-policy.js';
import { bind } from './private/bind.js';
import { createHandshakeRefusals, peerOf } from './private/handshake-refusals.js';
import { chainOf } from './private/peer-chain.js';
import { certificatePeerIdentity } from './private/peer-identity.js';
import type { TlsMaterial } from './tls-material.js';

export interface TlsListenerOptions {
  /** host:port ([v6]:port); port 0 picks one. */
  listen: string;
  material: TlsMaterial;
  handshakeTimeoutMs: number;
  audit: Audit;
  logger: Logger;
  /** Receives each connection that passed every check, ready for HTTP/2. */
  onConnection(socket: TLSSocket): void;
  /** Refusals audited one by one per address and minute before sampling starts. */
  refusalsPerPeer?: number;
}

export interface TlsListener {
  readonly port: number;
  /** The material new handshakes use. */
  material(): TlsMaterial;
  /**
   * Uses `material` for new handshakes, then closes every open connection
   * whose chain it revokes or no longer trusts. Returns how many it closed.
   */
  apply(material: TlsMaterial): number;
  /** Stops accepting connections; open ones stay. */
  close(): Promise<void>;
  /** Destroys every open connection (the end of a forced shutdown). */
  destroyAll(): void;
}

/** An authorised connection and what it was authorised with. */
interface LiveConnection {
  socket: TLSSocket;
  identity: AuditIdentity;
  /** The verified chain, leaf first, as Node reports it (peer's certificates and the bundle's). */
  chain: X509Certificate[];
  /** Chain certificates that were not in the bundle at handshake time: what the peer sent. */
  sent: X509Certificate[];
}

/**
 * Our own TLS listener in front of grpc-js: TLS 1.3 only, a client
 * certificate required, ALPN h2 only, a handshake timeout. It decides
 * every connection before a byte reaches HTTP/2, audits every refusal
 * (sampled under a flood) and remembers each open connection with its
 * chain, so a new CRL or CA bundle reaches connections that are already
 * open.
 *
 * Node is told not to reject unverified clients itself
 * (rejectUnauthorized: false): when it does, it drops the socket before any
 * public hook sees the certificate or the peer address, so the refusal
 * could not be audited with them. The check moves to `secureConnection`,
 * which Node emits synchronously after the handshake and before the socket
 * is readable by anyone else; `authorized` there is Node's full verdict
 * (chain, dates, CRLs, purpose). The cost: a client with no certificate
 * completes the TLS 1.3 handshake and is closed at once, instead of getting
 * a certificate_required alert.
 */
export async function startTlsListener(opts: TlsListenerOptions): Promise<TlsListener> {
  const { audit, logger } = opts;
  let material = opts.material;
  const live = new Map<TLSSocket, LiveConnection>();
  const refusals = createHandshakeRefusals({ audit, perPeer: opts.refusalsPerPeer ?? 20 });
  const refuse = refusals.refuse;

  const server: Server = createServer({
    ...material.options,
    requestCert: true,
    rejectUnauthorized: false,
    ALPNProtocols: ['h2'],
    handshakeTimeout: opts.handshakeTimeoutMs,
    // Small frames (a unary answer, a live event) go out at once instead of
    // waiting on Nagle's algorithm for the peer's acknowledgement.
    noDelay: true,
  });

  /**
   * Runs a decision about `socket` so that a throw inside it (a check, the
   * audit, the hand-over to HTTP/2) closes the socket instead of escaping
   * into Node's emitter, where it would leave the socket open and undecided
   * or take the daemon down.
   */
  const guarded = (socket: TLSSocket, decide: () => void) => {
    try {
      decide();
    } catch (err) {
      live.delete(socket);
      socket.destroy();
      logger.error({ err, peer: peerOf(socket) }, 'TLS connection check failed; connection closed');
    }
  };

  server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) =>
    guarded(socket, () => refuse(socket, handshakeErrorReason(err), err.code ?? err.message)),
  );

  server.on('secureConnection', (socket: TLSSocket) => {
    socket.on('error', (err) => logger.debug({ err }, 'TLS connection error'));
    guarded(socket, () => decide(socket));
  });

  /** Refuses `socket` or hands it to HTTP/2; nothing reaches grpc-js before the last line. */
  const decide = (socket: TLSSocket) => {
    if (socket.alpnProtocol !== 'h2') {
      refuse(socket, 'no_alpn_h2', 'the client did not offer ALPN h2');
      return;
    }
    const detailed = socket.getPeerCertificate(true);
    if (!socket.authorized) {
      const code = socket.authorizationError as unknown as string | null;
      refuse(socket, unverifiedReason(code, detailed, material.bundle), String(code));
      return;
    }
    const chain = chainOf(detailed);
    const leaf = chain[0];
    const policy = leaf ? leafPolicyRefusal(leaf) : 'no_client_certificate';
    if (policy) {
      refuse(socket, policy, `subject ${leaf?.subject.replace(/\n/g, ', ') ?? '(none)'}`);
      return;
    }
    const inBundle = new Set(material.bundle.map((c) => c.fingerprint256));
    live.set(socket, {
      socket,
      identity: certificatePeerIdentity(detailed, peerOf(socket) ?? 'unknown').audit,
      chain,
      sent: chain.slice(1).filter((c) => !inBundle.has(c.fingerprint256)),
    });
    socket.once('close', () => live.delete(socket));
    opts.onConnection(socket);
  };

  const bound = await bind(server, opts.listen, 'server.listen', logger, 'TLS listener');

  return {
    port: bound,
    material: () => material,
    apply(next) {
      server.setSecureContext(next.options);
      material = next;
      let closed = 0;
      for (const conn of [...live.values()]) {
        const hit = revokedInChain(conn.chain, next.revocationLists);
        const [leaf] = conn.chain;
        const trusted = leaf !== undefined && leadsToBundle(leaf, conn.sent, next.bundle);
        if (!hit && trusted) continue;
        closed++;
        live.delete(conn.socket);
        conn.socket.destroy();
        audit({
          kind: 'connection',
          outcome: 'deny',
          reason: hit ? 'cert_revoked' : 'trust_removed',
          identity: conn.identity,
          detail: hit
            ? `closed: serial ${hit.cert.serialNumber} of ${oneLine(hit.cert.subject)} is revoked by the CRL of ${hit.list.issuer}`
            : 'closed: the certificate chain no longer leads to a CA of the bundle',
        });
      }
      return closed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        refusals.close();
        server.close(() => resolve());
      }),
    destroyAll() {
      for (const socket of live.keys()) socket.destroy();
      live.clear();
    },
  };
}

function oneLine(name: string): string {
  return name.replace(/\n/g, ', ');
}

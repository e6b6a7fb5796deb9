import { isIPv6 } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Audit, AuditIdentity } from '@agent-bridge/bridge';
import { createRefusalAudit } from '../refusal-audit.js';
import { certificatePeerIdentity } from './peer-identity.js';

const AUDIT_WINDOW_MS = 60_000;
const MAX_TRACKED_PEERS = 1024;

export interface HandshakeRefusals {
  /** Closes `socket` at once, then audits the refusal with what its certificate says. */
  refuse(socket: TLSSocket, reason: string, detail: string): void;
  /** Writes the counts still open and stops the periodic flush. */
  close(): void;
}

/**
 * The refused connections of one TLS listener: each closed first (a
 * failing audit must not keep a refused socket open), then recorded as a
 * `tls` audit record with the peer address and the certificate's serial,
 * fingerprint and identity when it sent one, sampled per address under a
 * flood (createRefusalAudit). `listener` names the port in each record's
 * detail ("metrics listener: …"); empty for the gRPC port.
 */
export function createHandshakeRefusals(opts: {
  audit: Audit;
  perPeer: number;
  listener?: string;
}): HandshakeRefusals {
  const refusals = createRefusalAudit({
    audit: opts.audit,
    perPeer: opts.perPeer,
    windowMs: AUDIT_WINDOW_MS,
    maxPeers: MAX_TRACKED_PEERS,
    now: Date.now,
  });
  const sweep = setInterval(() => refusals.flush(), AUDIT_WINDOW_MS);
  sweep.unref();
  const prefix = opts.listener ? `${opts.listener}: ` : '';
  return {
    refuse(socket, reason, detail) {
      const host = socket.remoteAddress ?? 'unknown';
      const peer = peerOf(socket);
      let identity: AuditIdentity = { ...(peer ? { peer } : {}) };
      try {
        const cert = socket.getPeerCertificate();
        if (cert?.raw) identity = certificatePeerIdentity(cert, peer ?? host).audit;
      } catch {
        // A socket already torn down has no certificate to report.
      }
      socket.destroy();
      refusals.refused(host, {
        kind: 'tls',
        outcome: 'deny',
        reason,
        identity,
        detail: `${prefix}${detail}`,
      });
    },
    close() {
      clearInterval(sweep);
      refusals.flush(true);
    },
  };
}

/** address:port as grpc-js's getPeer() writes it, so tls and call records match. */
export function peerOf(socket: TLSSocket): string | undefined {
  const { remoteAddress: a, remotePort: p } = socket;
  if (a === undefined || p === undefined) return undefined;
  return isIPv6(a) ? `[${a}]:${p}` : `${a}:${p}`;
}

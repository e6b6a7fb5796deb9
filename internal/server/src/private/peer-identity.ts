import { createHash } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import type { AuditIdentity } from '@agent-bridge/bridge';

/** What the transport says about a call's peer: its certificate (if any) and who it names. */
export interface PeerIdentity {
  /** The client certificate's DER bytes; undefined when the connection has none. */
  der: Buffer | undefined;
  /** Subject CN and URI SANs, in that order. */
  identities: string[];
  /** For audit records and rate-limit keys. */
  audit: AuditIdentity;
}

export interface PeerCall {
  getAuthContext(): { sslPeerCertificate?: PeerCertificate };
  getPeer(): string;
}

/** The peer of `call` as its TLS connection established it. */
export function peerIdentity(call: PeerCall): PeerIdentity {
  return certificatePeerIdentity(call.getAuthContext().sslPeerCertificate, call.getPeer());
}

/**
 * The identity a certificate gives a peer at `peer` (address:port): the
 * same fields for a call's records as for the listener's `tls` and
 * `connection` records, so they can be joined.
 */
export function certificatePeerIdentity(
  cert: PeerCertificate | undefined,
  peer: string,
): PeerIdentity {
  if (!cert?.raw) return { der: undefined, identities: [], audit: { peer } };
  const identities = certificateIdentities(cert);
  return {
    der: cert.raw,
    identities,
    audit: {
      peer,
      certSerial: cert.serialNumber,
      certFingerprint: createHash('sha256').update(cert.raw).digest('hex'),
      ...(identities[0] ? { certIdentity: identities[0] } : {}),
    },
  };
}

/** The subject CN, then each URI SAN (Node quotes SAN values that contain a comma). */
export function certificateIdentities(
  cert: Pick<PeerCertificate, 'subject' | 'subjectaltname'>,
): string[] {
  const out: string[] = [];
  const cn = cert.subject?.CN;
  if (typeof cn === 'string' && cn !== '') out.push(cn);
  for (const m of (cert.subjectaltname ?? '').matchAll(/(?:^|, )URI:("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    const v = m[1] ?? '';
    out.push(v.startsWith('"') ? (JSON.parse(v) as string) : v);
  }
  return out;
}

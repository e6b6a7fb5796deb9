import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate } from 'node:tls';
import { isSelfSigned } from '@agent-bridge/pki';

/** The peer's chain as Node assembled it, leaf first, up to and including a root. */
export function chainOf(cert: DetailedPeerCertificate | undefined): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let c = cert; c?.raw && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    const x = new X509Certificate(c.raw);
    out.push(x);
    if (isSelfSigned(x)) break;
  }
  return out;
}

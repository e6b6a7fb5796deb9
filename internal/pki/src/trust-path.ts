import type { X509Certificate } from 'node:crypto';

/** Deeper than any path this PKI builds (root, cross certificate, leaf) with room to spare. */
const MAX_DEPTH = 8;

/**
 * Whether `leaf` still leads to a self-signed CA of `bundle`, through
 * `intermediates` (what the peer sent) and the bundle's own CA certificates,
 * checking names and signatures at each step. This is the question a
 * handshake answers about trust, asked again of a connection that is already
 * open after the bundle changed; validity dates and revocation are not part
 * of it.
 */
export function leadsToBundle(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  bundle: readonly X509Certificate[],
): boolean {
  const anchors = bundle.filter(isSelfSigned);
  const pool = [...intermediates, ...bundle.filter((c) => c.ca && !isSelfSigned(c))];
  const walk = (cert: X509Certificate, depth: number, seen: Set<X509Certificate>): boolean => {
    if (anchors.some((root) => issuedBy(cert, root))) return true;
    if (depth >= MAX_DEPTH) return false;
    for (const next of pool) {
      if (seen.has(next) || !next.ca || !issuedBy(cert, next)) continue;
      if (walk(next, depth + 1, new Set([...seen, next]))) return true;
    }
    return false;
  };
  return walk(leaf, 0, new Set());
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

/** Issued by itself and signed with its own key: a root. */
export function isSelfSigned(cert: X509Certificate): boolean {
  return issuedBy(cert, cert);
}

// RFC 5280 declares crlEntryExtensions as Extensions, a SEQUENCE SIZE (1..MAX):
// an entry without extensions must leave the field out. @peculiar/x509 writes
// an empty SEQUENCE instead (for every entry without a reason code), and so
// did bridge-ca's own CRLs before it rewrote them. OpenSSL, Node and
// @peculiar/x509 read such entries; pkijs refuses the whole CRL.
import { type DerNode, der, encodeDer, readDer } from './der.js';

const SEQUENCE = 0x30;
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;

/** A TBSCertList without its empty crlEntryExtensions, or undefined when it has none. */
export function withoutEmptyEntryExtensions(tbs: Buffer): Buffer | undefined {
  const node = readDer(tbs);
  const at = revokedCertificatesIndex(node);
  const list = at === undefined ? undefined : node.children[at];
  if (!list?.children.some(hasEmptyExtensions)) return undefined;
  const entries = list.children.map((entry) =>
    hasEmptyExtensions(entry)
      ? der.sequence(...entry.children.slice(0, 2).map(encodeDer))
      : encodeDer(entry),
  );
  return der.sequence(
    ...node.children.map((child, i) => (i === at ? der.sequence(...entries) : encodeDer(child))),
  );
}

/**
 * A whole CRL with its TBSCertList cleaned as above, and the TBS as the CA
 * signed it: the signature only verifies over those original bytes.
 * Undefined when there is nothing to clean or the input is not DER.
 */
export function crlWithoutEmptyEntryExtensions(
  crl: Buffer,
): { crl: Buffer; signedTbs: Buffer } | undefined {
  let node: DerNode;
  try {
    node = readDer(crl);
  } catch {
    return undefined;
  }
  // Lengths written longer than DER's would not survive re-encoding.
  if (!encodeDer(node).equals(crl)) return undefined;
  const [tbsNode, ...rest] = node.children;
  if (!tbsNode || tbsNode.tag !== SEQUENCE) return undefined;
  const signedTbs = encodeDer(tbsNode);
  const cleaned = withoutEmptyEntryExtensions(signedTbs);
  if (!cleaned) return undefined;
  return { crl: der.sequence(cleaned, ...rest.map(encodeDer)), signedTbs };
}

/**
 * TBSCertList is [version] signature issuer thisUpdate [nextUpdate]
 * [revokedCertificates] [crlExtensions]: the revoked list is the SEQUENCE
 * right after the last time.
 */
function revokedCertificatesIndex(tbs: DerNode): number | undefined {
  let lastTime = -1;
  tbs.children.forEach((child, i) => {
    if (child.tag === UTC_TIME || child.tag === GENERALIZED_TIME) lastTime = i;
  });
  const next = tbs.children[lastTime + 1];
  return lastTime >= 0 && next?.tag === SEQUENCE ? lastTime + 1 : undefined;
}

function hasEmptyExtensions(entry: DerNode): boolean {
  const extensions = entry.children[2];
  return extensions?.tag === SEQUENCE && extensions.content.length === 0;
}

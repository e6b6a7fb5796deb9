import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { normalizeSerial } from './ca-database.js';
import { certificatePems, splitPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { integerValue, readDer } from './private/der.js';
import { x509 } from './private/x509.js';
import { isSelfSigned } from './trust-path.js';

const CRL_NUMBER_OID = '2.5.29.20';

/** A CRL tied to the CA certificate whose key signed it. */
export interface RevocationList {
  /** The issuer's distinguished name, as @peculiar/x509 writes it ("CN=ai-agent-bridge"). */
  issuer: string;
  thisUpdate: Date;
  /** Absent when the CRL sets none. */
  nextUpdate?: Date;
  /** The CRL number extension, when present. */
  crlNumber?: bigint;
  /** Revoked serial numbers: lowercase hex, no leading zero bytes. */
  revokedSerials: ReadonlySet<string>;
  der: Buffer;
  /** The CA certificate (from the bundle it was checked against) that signed it. */
  signer: NodeX509Certificate;
}

/** The X509 CRL blocks of a PEM text, parsed. */
export function parseCrlBlocks(text: string, what = 'a CRL file'): x509.X509Crl[] {
  const blocks = splitPem(text).filter((b) => b.label === 'X509 CRL');
  if (blocks.length === 0) throw new PkiError('invalid-input', `${what} holds no X509 CRL block`);
  return blocks.map((block) => {
    try {
      return new x509.X509Crl(block.der);
    } catch {
      throw new PkiError('invalid-input', `${what}: a CRL could not be parsed`);
    }
  });
}

/** How `readRevocationLists` treats a CRL whose issuer is no CA of the bundle. */
export interface ReadRevocationListsOptions {
  /**
   * Called for each CRL whose issuer name matches no CA of the bundle, which
   * is then left out instead of refused. Such a list can revoke nothing the
   * bundle trusts: it is what remains of a CA that left the bundle (a
   * rotation's retire phase), and refusing it would make the retirement
   * impossible by reload. A CRL whose issuer name matches a CA of the bundle
   * but whose signature does not verify is refused all the same.
   */
  onForeignIssuer?: (issuer: string) => void;
}

/**
 * Reads the CRLs of a PEM text and ties each to the CA of `bundlePems` that
 * signed it: same name, and a signature that verifies with its key. A CRL
 * that no CA of the bundle signed is refused, since it can only come from a
 * file set that does not belong together (a new CRL beside an old bundle),
 * unless `opts.onForeignIssuer` accepts that no CA of the bundle has its name.
 */
export async function readRevocationLists(
  text: string,
  bundlePems: readonly string[],
  what = 'a CRL file',
  opts: ReadRevocationListsOptions = {},
): Promise<RevocationList[]> {
  const cas = bundlePems
    .flatMap((pem) => certificatePems(pem, 'the CA bundle'))
    .map((pem) => ({ peculiar: new x509.X509Certificate(pem), node: new NodeX509Certificate(pem) }))
    .filter((ca) => ca.node.ca);
  const lists: RevocationList[] = [];
  for (const crl of parseCrlBlocks(text, what)) {
    const named = cas.filter((ca) => ca.peculiar.subject === crl.issuer);
    if (named.length === 0 && opts.onForeignIssuer) {
      opts.onForeignIssuer(crl.issuer);
      continue;
    }
    let signer: NodeX509Certificate | undefined;
    for (const ca of named) {
      if (await crl.verify({ publicKey: ca.peculiar.publicKey }).catch(() => false)) {
        signer = ca.node;
        break;
      }
    }
    if (!signer) {
      throw new PkiError(
        'invalid-input',
        `${what}: the CRL of "${crl.issuer}" is not signed by any CA of the bundle`,
      );
    }
    const numberExt = crl.getExtension(CRL_NUMBER_OID);
    lists.push({
      issuer: crl.issuer,
      thisUpdate: crl.thisUpdate,
      ...(crl.nextUpdate ? { nextUpdate: crl.nextUpdate } : {}),
      ...(numberExt ? { crlNumber: integerValue(readDer(Buffer.from(numberExt.value))) } : {}),
      revokedSerials: new Set(crl.entries.map((entry) => normalizeSerial(entry.serialNumber))),
      der: Buffer.from(crl.rawData),
      signer,
    });
  }
  return lists;
}

/**
 * The first certificate of `chain` that one of `lists` revokes: a list
 * applies to a certificate its signer issued (name and signature), the way
 * OpenSSL matches CRLs. Self-signed roots are never checked: nothing above
 * them could revoke them.
 */
export function revokedInChain(
  chain: readonly NodeX509Certificate[],
  lists: readonly RevocationList[],
): { cert: NodeX509Certificate; list: RevocationList } | undefined {
  for (const cert of chain) {
    if (isSelfSigned(cert)) continue;
    const serial = normalizeSerial(cert.serialNumber);
    for (const list of lists) {
      if (!list.revokedSerials.has(serial)) continue;
      if (cert.checkIssued(list.signer) && cert.verify(list.signer.publicKey))
        return { cert, list };
    }
  }
  return undefined;
}

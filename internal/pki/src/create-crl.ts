import { KeyObject, sign } from 'node:crypto';
import type { CertAndKey } from './cert-and-key.js';
import { toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { withoutEmptyEntryExtensions } from './private/crl-entry-extensions.js';
import { der, encodeDer, readDer } from './private/der.js';
import { loadCa } from './private/load-ca.js';
import type { SigningKey } from './private/signing-key.js';
import { DAY_MS } from './private/validity.js';
import { x509 } from './private/x509.js';

export const DEFAULT_CRL_DAYS = 30;

/** RFC 5280 CRLReason names, as `revoke --reason` accepts them. */
export const REVOCATION_REASONS = [
  'unspecified',
  'keyCompromise',
  'cACompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  'privilegeWithdrawn',
  'aACompromise',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** The canonical reason name for user input (case-insensitive), or undefined. */
export function revocationReason(input: string): RevocationReason | undefined {
  return REVOCATION_REASONS.find((reason) => reason.toLowerCase() === input.toLowerCase());
}

export interface RevokedEntry {
  serialHex: string;
  date?: Date;
  reason?: string;
}

const CRL_NUMBER_OID = '2.5.29.20';

/**
 * A signed CRL in PEM with the `X509 CRL` label that OpenSSL and Node
 * require (@peculiar/x509's own PEM label is not that). It carries the
 * AKI and a CRL number, both required by RFC 5280; without `crlNumber` the
 * number is the issue time in seconds, which only ever grows. An entry
 * without a reason (`unspecified` included: RFC 5280 asks for the reason to
 * be left out rather than say that) has no crlEntryExtensions field.
 */
export async function createCrl(opts: {
  ca: CertAndKey;
  revoked: RevokedEntry[];
  days?: number;
  now?: Date;
  crlNumber?: number | bigint;
}): Promise<string> {
  const now = opts.now ?? new Date();
  const ca = await loadCa(opts.ca, now);
  const days = opts.days ?? DEFAULT_CRL_DAYS;
  if (!(days > 0)) throw new PkiError('invalid-input', 'CRL validity must be positive');
  const crlNumber = opts.crlNumber ?? BigInt(Math.floor(now.getTime() / 1000));
  const generated = await x509.X509CrlGenerator.create({
    issuer: ca.cert.subjectName,
    thisUpdate: now,
    nextUpdate: new Date(now.getTime() + days * DAY_MS),
    signingKey: ca.signer.key,
    signingAlgorithm: ca.signer.algorithm,
    extensions: [
      new x509.AuthorityKeyIdentifierExtension(ca.keyId),
      new x509.Extension(CRL_NUMBER_OID, false, der.integer(crlNumber)),
    ],
    entries: opts.revoked.map((entry) => {
      const reason = entry.reason === undefined ? undefined : revocationReason(entry.reason);
      if (entry.reason !== undefined && reason === undefined) {
        throw new PkiError('invalid-input', `unknown revocation reason "${entry.reason}"`);
      }
      if (!/^[0-9a-f]+$/i.test(entry.serialHex)) {
        throw new PkiError('invalid-input', `invalid serial number "${entry.serialHex}"`);
      }
      return {
        serialNumber: entry.serialHex,
        revocationDate: entry.date ?? now,
        ...(reason ? { reason: x509.X509CrlReason[reason] } : {}),
      };
    }),
  });
  const rawCrl = Buffer.from(generated.rawData);
  // @peculiar/x509 gives an entry without extensions an empty SEQUENCE, which
  // RFC 5280 forbids and pkijs cannot read: such a CRL is rebuilt without it.
  const [tbs, algorithm] = readDer(rawCrl).children;
  const cleaned = tbs && withoutEmptyEntryExtensions(encodeDer(tbs));
  const crl = cleaned && algorithm ? signCrl(cleaned, encodeDer(algorithm), ca.signer) : rawCrl;
  // @peculiar/x509's own PEM label for CRLs is not the one OpenSSL and Node accept.
  return toPem(crl, 'X509 CRL');
}

/** CertificateList: the TBS, the algorithm it names, and the signature over it. */
function signCrl(tbs: Buffer, algorithm: Buffer, signer: SigningKey): Buffer {
  // node:crypto writes ECDSA signatures in DER, as X.509 wants (WebCrypto's are not).
  const signature = sign(signer.digest, tbs, KeyObject.from(signer.key));
  return der.sequence(tbs, algorithm, der.bitString(signature));
}

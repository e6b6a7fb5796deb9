import type { CertAndKey } from './cert-and-key.js';
import { DEFAULT_KEY_TYPE, generateKey, type KeyType } from './key-type.js';
import { toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { randomSerialHex } from './private/serial-number.js';
import { toSigningKey } from './private/signing-key.js';
import { validityWindow } from './private/validity.js';
import { x509 } from './private/x509.js';

export const DEFAULT_CA_DAYS = 3650;

/**
 * pathlen 1 leaves room for exactly one CA between this root and a leaf:
 * another project's CA cross-signed by this one. Cross certificates
 * themselves get pathlen 0, so trust extends to that CA's leaves only.
 */
export const ROOT_PATH_LENGTH = 1;

export const CA_KEY_USAGE = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign;

export function checkSubjectName(name: string, what: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new PkiError('invalid-name', `${what} is empty`);
  // X.520 ub-common-name.
  if (trimmed.length > 64)
    throw new PkiError('invalid-name', `${what} is longer than 64 characters`);
  if (/\p{Cc}/u.test(trimmed))
    throw new PkiError('invalid-name', `${what} contains control characters`);
  return trimmed;
}

/** A self-signed root CA: CA:TRUE pathlen 1, keyCertSign + cRLSign, SKI/AKI. */
export async function createCA(opts: {
  name: string;
  keyType?: KeyType;
  days?: number;
  now?: Date;
  notAfter?: Date;
}): Promise<CertAndKey> {
  const name = checkSubjectName(opts.name, 'the CA name');
  const key = await generateKey(opts.keyType ?? DEFAULT_KEY_TYPE);
  const signer = await toSigningKey(key.privatePem);
  const publicKey = new x509.PublicKey(key.publicKey.export({ type: 'spki', format: 'der' }));
  const keyId = Buffer.from(await publicKey.getKeyIdentifier()).toString('hex');
  const subject = [{ CN: [name] }];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialHex(),
    subject,
    issuer: subject,
    publicKey,
    signingKey: signer.key,
    signingAlgorithm: signer.algorithm,
    ...validityWindow({
      days: opts.days ?? DEFAULT_CA_DAYS,
      now: opts.now,
      notAfter: opts.notAfter,
    }),
    extensions: [
      new x509.BasicConstraintsExtension(true, ROOT_PATH_LENGTH, true),
      new x509.KeyUsagesExtension(CA_KEY_USAGE, true),
      new x509.SubjectKeyIdentifierExtension(keyId),
      new x509.AuthorityKeyIdentifierExtension(keyId),
    ],
  });
  return { certPem: toPem(cert.rawData, 'CERTIFICATE'), keyPem: key.privatePem };
}

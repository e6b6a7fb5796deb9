import { createPublicKey, X509Certificate as NodeX509Certificate } from 'node:crypto';
import type { CertAndKey } from './cert-and-key.js';
import { certificateFacts, parseCertificate } from './certificate-facts.js';
import { DEFAULT_LEAF_DAYS, signLeaf } from './issue-cert.js';
import { generateKey, type KeyType } from './key-type.js';
import { PkiError } from './pki-error.js';
import { isIssuedBy, loadCa } from './private/load-ca.js';
import { validityWindow } from './private/validity.js';

export interface RenewCertOptions {
  certPem: string;
  ca: CertAndKey;
  days?: number;
  now?: Date;
  /** Generate a new key instead of certifying the old public key again. */
  rekey?: boolean;
  /** Key type for --rekey; defaults to the old key's type. */
  keyType?: KeyType;
}

/**
 * A new certificate with the same subject, SANs and purpose, new serial and
 * validity. Without rekey the old public key is certified again, so the
 * private key is not needed and stays where it is.
 */
export async function renewCert(
  opts: RenewCertOptions,
): Promise<{ certPem: string; keyPem?: string }> {
  const old = parseCertificate(opts.certPem, 'certificate');
  const facts = certificateFacts(opts.certPem, 'certificate');
  if (facts.kind !== 'server' && facts.kind !== 'client' && facts.kind !== 'peer') {
    throw new PkiError(
      'invalid-input',
      `${facts.subject} is not a server, client or peer certificate`,
    );
  }
  const ca = await loadCa(opts.ca, opts.now ?? new Date());
  if (!(await isIssuedBy(old, ca))) {
    throw new PkiError('key-mismatch', `${facts.subject} was not issued by CA ${ca.cert.subject}`);
  }
  let publicKey = new NodeX509Certificate(Buffer.from(old.rawData)).publicKey;
  let keyPem: string | undefined;
  if (opts.rekey) {
    const key = await generateKey(
      opts.keyType ?? (facts.keyType.startsWith('rsa') ? 'rsa-4096' : 'ecdsa-p384'),
    );
    publicKey = createPublicKey(key.privatePem);
    keyPem = key.privatePem;
  }
  const certPem = await signLeaf({
    ca,
    type: facts.kind,
    subject: old.subjectName,
    publicKey,
    sans: facts.sans,
    ...validityWindow({
      days: opts.days ?? DEFAULT_LEAF_DAYS,
      now: opts.now,
      limit: ca.cert.notAfter,
    }),
  });
  return keyPem === undefined ? { certPem } : { certPem, keyPem };
}

import type { CertAndKey } from './cert-and-key.js';
import { parseCertificate } from './certificate-facts.js';
import { CA_KEY_USAGE } from './create-ca.js';
import { toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { loadCa } from './private/load-ca.js';
import { randomSerialHex } from './private/serial-number.js';
import { validityWindow } from './private/validity.js';
import { x509 } from './private/x509.js';

/**
 * A certificate for another project's CA, issued by ours: the target's exact
 * subject name, public key and SKI, so leaves the target CA signs chain
 * through it to our root. pathlen 0 limits the trust to the target's own
 * leaves; it cannot vouch for further CAs under our name. Valid until the
 * target CA expires unless `days` says less, never beyond the signer.
 */
export async function crossSign(opts: {
  signer: CertAndKey;
  targetCaPem: string;
  days?: number;
  now?: Date;
}): Promise<string> {
  const now = opts.now ?? new Date();
  const signer = await loadCa(opts.signer, now);
  const target = parseCertificate(opts.targetCaPem, 'target CA certificate');
  if (target.getExtension(x509.BasicConstraintsExtension)?.ca !== true) {
    throw new PkiError('not-a-ca', `the target ${target.subject} is not a CA certificate`);
  }
  if (target.notAfter < now) {
    throw new PkiError(
      'ca-expired',
      `the target CA ${target.subject} expired on ${target.notAfter.toISOString()}`,
    );
  }
  if (Buffer.from(target.publicKey.rawData).equals(Buffer.from(signer.cert.publicKey.rawData))) {
    throw new PkiError('invalid-input', 'the target CA is the signer itself');
  }
  const targetSki = target.getExtension(x509.SubjectKeyIdentifierExtension);
  const keyId = targetSki
    ? targetSki.keyId
    : Buffer.from(await target.publicKey.getKeyIdentifier()).toString('hex');
  const window = validityWindow({
    now,
    days: opts.days ?? 1,
    notAfter: opts.days === undefined ? target.notAfter : undefined,
    limit: new Date(Math.min(signer.cert.notAfter.getTime(), target.notAfter.getTime())),
  });
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialHex(),
    subject: target.subjectName,
    issuer: signer.cert.subjectName,
    publicKey: target.publicKey,
    signingKey: signer.signer.key,
    signingAlgorithm: signer.signer.algorithm,
    ...window,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(CA_KEY_USAGE, true),
      new x509.SubjectKeyIdentifierExtension(keyId),
      new x509.AuthorityKeyIdentifierExtension(signer.keyId),
    ],
  });
  return toPem(cert.rawData, 'CERTIFICATE');
}

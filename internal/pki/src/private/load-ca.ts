import type { CertAndKey } from '../cert-and-key.js';
import { parseCertificate } from '../certificate-facts.js';
import { PkiError } from '../pki-error.js';
import { type SigningKey, toSigningKey } from './signing-key.js';
import { x509 } from './x509.js';

export interface LoadedCa {
  cert: x509.X509Certificate;
  signer: SigningKey;
  /** Hex key identifier that certificates it signs name in their AKI. */
  keyId: string;
}

/**
 * Checks that a certificate and key can act as an issuing CA: the cert says
 * CA:TRUE, the key is the cert's key, and (when `at` is given) the CA has not
 * expired. Not-yet-valid CAs are allowed so tests can backdate issuance.
 */
export async function loadCa(ca: CertAndKey, at?: Date): Promise<LoadedCa> {
  const cert = parseCertificate(ca.certPem, 'CA certificate');
  const basic = cert.getExtension(x509.BasicConstraintsExtension);
  if (basic?.ca !== true) {
    throw new PkiError(
      'not-a-ca',
      `${cert.subject} is not a CA certificate (no basicConstraints CA:TRUE)`,
    );
  }
  if (at && cert.notAfter < at) {
    throw new PkiError(
      'ca-expired',
      `CA ${cert.subject} expired on ${cert.notAfter.toISOString()}`,
    );
  }
  const signer = await toSigningKey(ca.keyPem);
  const certSpki = Buffer.from(cert.publicKey.rawData);
  const keySpki = signer.publicKey.export({ type: 'spki', format: 'der' });
  if (!certSpki.equals(keySpki)) {
    throw new PkiError(
      'key-mismatch',
      `the CA key does not match the CA certificate ${cert.subject}`,
    );
  }
  const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
  const keyId = ski
    ? ski.keyId
    : Buffer.from(await cert.publicKey.getKeyIdentifier()).toString('hex');
  return { cert, signer, keyId };
}

/** Whether a certificate was signed by this CA (names chain and the signature verifies). */
export async function isIssuedBy(cert: x509.X509Certificate, ca: LoadedCa): Promise<boolean> {
  if (cert.issuer !== ca.cert.subject) return false;
  return cert.verify({ publicKey: ca.cert.publicKey, signatureOnly: true });
}

/** A certificate and its unencrypted PKCS#8 private key, both PEM. */
export interface CertAndKey {
  certPem: string;
  keyPem: string;
}

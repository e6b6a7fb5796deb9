import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { clientNameFromUri } from './client-identity.js';
import { describeKeyObject } from './key-type.js';
import { singleCertificatePem } from './pem.js';
import { PkiError } from './pki-error.js';
import { x509 } from './private/x509.js';
import type { SubjectAltNames } from './subject-alt-names.js';

export type CertificateKind = 'ca' | 'server' | 'client' | 'peer' | 'leaf';

/** What a certificate says, in plain values (for inspect, renew and checks). */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  commonName: string;
  serialHex: string;
  notBefore: Date;
  notAfter: Date;
  kind: CertificateKind;
  isCa: boolean;
  pathLength?: number;
  selfIssued: boolean;
  sans: SubjectAltNames;
  /** The client identity from the `urn:agent-bridge:client:` URI SAN, if any. */
  clientName?: string;
  extendedKeyUsages: string[];
  keyType: string;
  subjectKeyId?: string;
  authorityKeyId?: string;
  fingerprintSha256: string;
}

export const EKU = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  any: '2.5.29.37.0',
} as const;

export function parseCertificate(pem: string, what = 'input'): x509.X509Certificate {
  const single = singleCertificatePem(pem, what);
  try {
    return new x509.X509Certificate(single);
  } catch {
    throw new PkiError('invalid-input', `${what} is not a readable X.509 certificate`);
  }
}

export function certificateFacts(pem: string, what = 'input'): CertificateFacts {
  const cert = parseCertificate(pem, what);
  const node = new NodeX509Certificate(Buffer.from(cert.rawData));
  const basic = cert.getExtension(x509.BasicConstraintsExtension);
  const ekuExt = cert.getExtension(x509.ExtendedKeyUsageExtension);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
  const aki = cert.getExtension(x509.AuthorityKeyIdentifierExtension);
  const sans: SubjectAltNames = { dns: [], ip: [], uri: [] };
  for (const name of san?.names.items ?? []) {
    if (name.type === 'dns') sans.dns.push(name.value);
    else if (name.type === 'ip') sans.ip.push(name.value);
    else if (name.type === 'url') sans.uri.push(name.value);
  }
  const extendedKeyUsages = (ekuExt?.usages ?? []).map(String);
  const isCa = basic?.ca === true;
  const clientName = sans.uri.map(clientNameFromUri).find((name) => name !== undefined);
  const facts: CertificateFacts = {
    subject: cert.subject,
    issuer: cert.issuer,
    commonName: cert.subjectName.getField('CN')[0] ?? '',
    serialHex: cert.serialNumber.toLowerCase(),
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    kind: isCa
      ? 'ca'
      : extendedKeyUsages.includes(EKU.serverAuth) && extendedKeyUsages.includes(EKU.clientAuth)
        ? 'peer'
        : extendedKeyUsages.includes(EKU.serverAuth)
          ? 'server'
          : extendedKeyUsages.includes(EKU.clientAuth)
            ? 'client'
            : 'leaf',
    isCa,
    selfIssued: cert.subject === cert.issuer,
    sans,
    extendedKeyUsages,
    keyType: describeKeyObject(node.publicKey),
    fingerprintSha256: node.fingerprint256,
  };
  if (basic?.pathLength !== undefined) facts.pathLength = basic.pathLength;
  if (clientName) facts.clientName = clientName;
  if (ski) facts.subjectKeyId = ski.keyId.toLowerCase();
  if (aki?.keyId) facts.authorityKeyId = aki.keyId.toLowerCase();
  return facts;
}

/** Whether `certPem` names `caPem`'s subject as issuer and carries its signature. */
export function isIssuedBy(certPem: string, caPem: string): boolean {
  const cert = new NodeX509Certificate(singleCertificatePem(certPem, 'certificate'));
  const ca = new NodeX509Certificate(singleCertificatePem(caPem, 'CA certificate'));
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import type { CertAndKey } from './cert-and-key.js';
import { EKU } from './certificate-facts.js';
import { clientIdentityUri } from './client-identity.js';
import { checkSubjectName } from './create-ca.js';
import { DEFAULT_KEY_TYPE, generateKey, type KeyType } from './key-type.js';
import { toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { type LoadedCa, loadCa } from './private/load-ca.js';
import { randomSerialHex } from './private/serial-number.js';
import { validityWindow } from './private/validity.js';
import { x509 } from './private/x509.js';
import { isDnsName, parseSans, type SubjectAltNames } from './subject-alt-names.js';

/**
 * What a leaf certificate is for: a TLS server, a TLS client, or a peer
 * that is both (a NATS cluster's servers dial each other's routes with the
 * one certificate they serve with).
 */
export type LeafType = 'server' | 'client' | 'peer';

export const DEFAULT_LEAF_DAYS = 90;

export interface IssueCertOptions {
  type: LeafType;
  cn: string;
  /** DNS names and IP addresses. */
  sans?: string[];
  ca: CertAndKey;
  days?: number;
  /** Overrides `days`, e.g. for deliberately short-lived or expired test certificates. */
  notAfter?: Date;
  keyType?: KeyType;
  /** Issue as if at this time (notBefore is 5 minutes earlier). */
  now?: Date;
}

/**
 * A leaf certificate and a fresh key. Server certs also list their CN as a
 * DNS/IP SAN when it is one (clients match SANs only); client certs carry
 * the `urn:agent-bridge:client:<cn>` identity URI.
 */
export async function issueCert(opts: IssueCertOptions): Promise<CertAndKey> {
  const cn = checkSubjectName(opts.cn, 'the CN');
  const sans = leafSans(opts.type, cn, opts.sans ?? []);
  const ca = await loadCa(opts.ca, opts.now ?? new Date());
  const key = await generateKey(opts.keyType ?? DEFAULT_KEY_TYPE);
  const certPem = await signLeaf({
    ca,
    type: opts.type,
    subject: [{ CN: [cn] }],
    publicKey: key.publicKey,
    sans,
    ...validityWindow({
      days: opts.days ?? DEFAULT_LEAF_DAYS,
      now: opts.now,
      notAfter: opts.notAfter,
      limit: ca.cert.notAfter,
    }),
  });
  return { certPem, keyPem: key.privatePem };
}

const EXTENDED_KEY_USAGES: Record<LeafType, string[]> = {
  server: [EKU.serverAuth],
  client: [EKU.clientAuth],
  peer: [EKU.serverAuth, EKU.clientAuth],
};

export function leafSans(type: LeafType, cn: string, entries: readonly string[]): SubjectAltNames {
  const parsed = parseSans(entries);
  const sans: SubjectAltNames = { ...parsed, uri: [] };
  if (type === 'client') {
    sans.uri.push(clientIdentityUri(cn));
  } else {
    const lower = cn.toLowerCase();
    if (isDnsName(lower) || isIP(cn)) {
      const fromCn = parseSans([cn]);
      sans.dns = [...new Set([...fromCn.dns, ...sans.dns])];
      sans.ip = [...new Set([...fromCn.ip, ...sans.ip])];
    }
    if (sans.dns.length === 0 && sans.ip.length === 0) {
      throw new PkiError(
        'invalid-san',
        'a server certificate needs at least one DNS or IP SAN (the CN is neither)',
      );
    }
  }
  return sans;
}

export async function signLeaf(opts: {
  ca: LoadedCa;
  type: LeafType;
  subject: x509.JsonName | x509.Name;
  publicKey: KeyObject;
  sans: SubjectAltNames;
  notBefore: Date;
  notAfter: Date;
}): Promise<string> {
  const publicKey = new x509.PublicKey(opts.publicKey.export({ type: 'spki', format: 'der' }));
  const keyId = Buffer.from(await publicKey.getKeyIdentifier()).toString('hex');
  // keyEncipherment only means something for RSA key transport (TLS 1.2).
  const isRsa = opts.publicKey.asymmetricKeyType === 'rsa';
  const usage =
    x509.KeyUsageFlags.digitalSignature |
    (isRsa && opts.type !== 'client' ? x509.KeyUsageFlags.keyEncipherment : 0);
  const names: x509.JsonGeneralName[] = [
    ...opts.sans.dns.map((value) => ({ type: 'dns' as const, value })),
    ...opts.sans.ip.map((value) => ({ type: 'ip' as const, value })),
    ...opts.sans.uri.map((value) => ({ type: 'url' as const, value })),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialHex(),
    subject: opts.subject,
    issuer: opts.ca.cert.subjectName,
    publicKey,
    signingKey: opts.ca.signer.key,
    signingAlgorithm: opts.ca.signer.algorithm,
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(usage, true),
      new x509.ExtendedKeyUsageExtension(EXTENDED_KEY_USAGES[opts.type], false),
      new x509.SubjectKeyIdentifierExtension(keyId),
      new x509.AuthorityKeyIdentifierExtension(opts.ca.keyId),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names, false)] : []),
    ],
  });
  return toPem(cert.rawData, 'CERTIFICATE');
}

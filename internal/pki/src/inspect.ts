import { createPrivateKey, createPublicKey } from 'node:crypto';
import { certificateFacts } from './certificate-facts.js';
import { ed25519PublicParts } from './jwt-keys.js';
import { describeKeyEncryption } from './key-encryption.js';
import { describeKeyObject } from './key-type.js';
import { type PemBlock, splitPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { integerValue, readDer } from './private/der.js';
import { x509 } from './private/x509.js';

export type InspectValue = string | number | boolean | string[];

/** One object found in a file: its type and display fields in a stable order. */
export interface InspectedItem {
  type: 'certificate' | 'private-key' | 'encrypted-private-key' | 'public-key' | 'crl' | 'jwk';
  fields: Record<string, InspectValue>;
}

/** Describes every certificate, key and CRL in a PEM text, or a JWK JSON document. */
export function inspectText(text: string): InspectedItem[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return [inspectJwk(trimmed)];
  const blocks = splitPem(text);
  if (blocks.length === 0) throw new PkiError('invalid-input', 'no PEM blocks and not a JWK');
  return blocks.map(inspectBlock);
}

function inspectBlock(block: PemBlock): InspectedItem {
  switch (block.label) {
    case 'CERTIFICATE':
      return inspectCertificate(block.pem);
    case 'PRIVATE KEY':
    case 'RSA PRIVATE KEY':
    case 'EC PRIVATE KEY': {
      const key = createPrivateKey(block.pem);
      return { type: 'private-key', fields: { keyType: keyTypeOf(key), encrypted: false } };
    }
    case 'ENCRYPTED PRIVATE KEY':
      return {
        type: 'encrypted-private-key',
        fields: { encrypted: true, encryption: describeKeyEncryption(block.pem) },
      };
    case 'PUBLIC KEY': {
      const key = createPublicKey(block.pem);
      const fields: Record<string, InspectValue> = { keyType: keyTypeOf(key) };
      if (key.asymmetricKeyType === 'ed25519') fields.kid = ed25519PublicParts(key).kid;
      return { type: 'public-key', fields };
    }
    case 'X509 CRL':
      return inspectCrl(block.der);
    default:
      throw new PkiError('invalid-input', `unsupported PEM block "${block.label}"`);
  }
}

function keyTypeOf(key: Parameters<typeof describeKeyObject>[0]): string {
  return key.asymmetricKeyType === 'ed25519' ? 'ed25519' : describeKeyObject(key);
}

function inspectCertificate(pem: string): InspectedItem {
  const facts = certificateFacts(pem);
  const { subject, issuer, kind, isCa: ca, pathLength, selfIssued, keyType, sans } = facts;
  // In the order shown; a field that does not apply is left out.
  const fields: Record<string, InspectValue | undefined> = {
    subject,
    issuer,
    kind,
    ca,
    pathLength,
    selfIssued,
    serial: facts.serialHex,
    notBefore: facts.notBefore.toISOString(),
    notAfter: facts.notAfter.toISOString(),
    keyType,
    dns: sans.dns.length ? sans.dns : undefined,
    ip: sans.ip.length ? sans.ip : undefined,
    uri: sans.uri.length ? sans.uri : undefined,
    clientIdentity: facts.clientName || undefined,
    extendedKeyUsage: facts.extendedKeyUsages.length
      ? facts.extendedKeyUsages.map(ekuName)
      : undefined,
    subjectKeyId: facts.subjectKeyId || undefined,
    authorityKeyId: facts.authorityKeyId || undefined,
    fingerprintSha256: facts.fingerprintSha256,
  };
  return { type: 'certificate', fields: present(fields) };
}

/** The fields that are set. */
function present(fields: Record<string, InspectValue | undefined>): Record<string, InspectValue> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      (entry): entry is [string, InspectValue] => entry[1] !== undefined,
    ),
  );
}

const EKU_NAMES: Record<string, string> = {
  '1.3.6.1.5.5.7.3.1': 'serverAuth',
  '1.3.6.1.5.5.7.3.2': 'clientAuth',
};

function ekuName(oid: string): string {
  return EKU_NAMES[oid] ?? oid;
}

function inspectCrl(derBytes: Buffer): InspectedItem {
  let crl: x509.X509Crl;
  try {
    crl = new x509.X509Crl(derBytes);
  } catch {
    throw new PkiError('invalid-input', 'unreadable CRL');
  }
  const fields: Record<string, InspectValue> = {
    issuer: crl.issuer,
    thisUpdate: crl.thisUpdate.toISOString(),
  };
  if (crl.nextUpdate) fields.nextUpdate = crl.nextUpdate.toISOString();
  const numberExt = crl.getExtension('2.5.29.20');
  if (numberExt) fields.crlNumber = integerValue(readDer(Buffer.from(numberExt.value))).toString();
  const aki = crl.getExtension(x509.AuthorityKeyIdentifierExtension);
  if (aki?.keyId) fields.authorityKeyId = aki.keyId.toLowerCase();
  fields.revoked = crl.entries.map((entry) => {
    const reason = entry.reason === undefined ? '' : ` ${x509.X509CrlReason[entry.reason]}`;
    return `${entry.serialNumber.toLowerCase()} ${entry.revocationDate.toISOString()}${reason}`;
  });
  return { type: 'crl', fields };
}

function inspectJwk(text: string): InspectedItem {
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new PkiError('invalid-input', 'not valid JSON');
  }
  if (typeof jwk.kty !== 'string')
    throw new PkiError('invalid-input', 'JSON but not a JWK (no kty)');
  const fields: Record<string, InspectValue> = {};
  for (const [key, value] of Object.entries(jwk)) {
    if (key !== 'd' && typeof value === 'string') fields[key] = value;
  }
  if (typeof jwk.d === 'string') fields.private = true;
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string') {
    const parts = ed25519PublicParts(
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }),
    );
    fields.thumbprint = parts.kid;
    fields.kidMatchesThumbprint = jwk.kid === parts.kid;
  }
  return { type: 'jwk', fields };
}

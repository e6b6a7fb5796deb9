import {
  createCipheriv,
  createPrivateKey,
  type KeyObject,
  pbkdf2Sync,
  randomBytes,
} from 'node:crypto';
import { splitPem, toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { der, integerValue, oidToString, readDer } from './private/der.js';
import { unencryptedPrivateKey } from './private/unencrypted-key.js';

/**
 * How CA keys are encrypted at rest: PKCS#8 EncryptedPrivateKeyInfo with
 * PBES2, PBKDF2-HMAC-SHA256 and AES-256-CBC, the same structure
 * `openssl pkcs8 -topk8 -v2 aes-256-cbc -iter N` writes. Node's own export
 * uses only 2048 PBKDF2 iterations; 600,000 follows OWASP's 2023 advice for
 * PBKDF2-HMAC-SHA256 and costs about 0.1 s per use here. We write the
 * structure ourselves and let Node (OpenSSL) read it, so any PKCS#8 key
 * OpenSSL can decrypt is accepted as input, including scrypt-protected ones.
 */
export const KEY_ENCRYPTION = {
  kdf: 'PBKDF2-HMAC-SHA256',
  iterations: 600_000,
  saltBytes: 16,
  cipher: 'AES-256-CBC',
} as const;

const OID = {
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
  hmacWithSha256: '1.2.840.113549.2.9',
  aes256Cbc: '2.16.840.1.101.3.4.1.42',
} as const;

const ENCRYPTED_LABEL = 'ENCRYPTED PRIVATE KEY';

function readPrivateKey(pem: string, passphrase?: string): KeyObject {
  return createPrivateKey(passphrase === undefined ? pem : { key: pem, passphrase });
}

/** Encrypts a private key (any PEM form Node reads) as PBES2 PKCS#8 PEM. */
export function encryptPrivateKey(pem: string, passphrase: string): string {
  if (passphrase.length === 0) throw new PkiError('invalid-input', 'the passphrase is empty');
  const plain = unencryptedPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  const salt = randomBytes(KEY_ENCRYPTION.saltBytes);
  const iv = randomBytes(16);
  const cek = pbkdf2Sync(passphrase, salt, KEY_ENCRYPTION.iterations, 32, 'sha256');
  const cipher = createCipheriv('aes-256-cbc', cek, iv);
  const encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
  const info = der.sequence(
    der.sequence(
      der.oid(OID.pbes2),
      der.sequence(
        der.sequence(
          der.oid(OID.pbkdf2),
          der.sequence(
            der.octetString(salt),
            der.integer(KEY_ENCRYPTION.iterations),
            der.sequence(der.oid(OID.hmacWithSha256), der.nullValue()),
          ),
        ),
        der.sequence(der.oid(OID.aes256Cbc), der.octetString(iv)),
      ),
    ),
    der.octetString(encrypted),
  );
  return toPem(info, ENCRYPTED_LABEL);
}

export function isEncryptedPrivateKey(pem: string): boolean {
  return splitPem(pem).some((block) => block.label === ENCRYPTED_LABEL);
}

/**
 * Decrypts an encrypted PKCS#8 PEM to unencrypted PKCS#8 PEM. Any failure to
 * decrypt a well-formed encrypted key is reported as a wrong passphrase:
 * with CBC padding a wrong key usually fails the padding check, and
 * otherwise yields garbage that fails to parse.
 */
export function decryptPrivateKey(pem: string, passphrase: string): string {
  if (!isEncryptedPrivateKey(pem)) {
    throw new PkiError('invalid-input', 'the key is not an encrypted PKCS#8 key');
  }
  let key: KeyObject;
  try {
    key = readPrivateKey(pem, passphrase);
  } catch {
    throw new PkiError('wrong-passphrase', 'wrong passphrase for the encrypted key');
  }
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A description of an encrypted key's protection, e.g. for `inspect`. */
export function describeKeyEncryption(pem: string): string {
  const block = splitPem(pem).find((b) => b.label === ENCRYPTED_LABEL);
  if (!block) return 'not encrypted';
  try {
    const [algorithm] = readDer(block.der).children;
    const [schemeOid, params] = algorithm?.children ?? [];
    if (!schemeOid || oidToString(schemeOid) !== OID.pbes2 || !params)
      return 'encrypted (not PBES2)';
    const [kdf, scheme] = params.children;
    const kdfOid = kdf?.children[0] ? oidToString(kdf.children[0]) : '';
    const cipherOid = scheme?.children[0] ? oidToString(scheme.children[0]) : '';
    const cipher = CIPHERS[cipherOid] ?? cipherOid;
    if (kdfOid === OID.pbkdf2) {
      const [, iterations, ...rest] = kdf?.children[1]?.children ?? [];
      const prfNode = rest.find((node) => node.tag === 0x30);
      const prfOid = prfNode?.children[0] ? oidToString(prfNode.children[0]) : '1.2.840.113549.2.7';
      const prf = PRFS[prfOid] ?? prfOid;
      const count = iterations ? integerValue(iterations).toString() : '?';
      return `PBES2, PBKDF2-${prf} ${count} iterations, ${cipher}`;
    }
    if (kdfOid === '1.3.6.1.4.1.11591.4.11') return `PBES2, scrypt, ${cipher}`;
    return `PBES2, KDF ${kdfOid}, ${cipher}`;
  } catch {
    return 'encrypted (unreadable parameters)';
  }
}

const CIPHERS: Record<string, string> = {
  [OID.aes256Cbc]: 'AES-256-CBC',
  '2.16.840.1.101.3.4.1.22': 'AES-192-CBC',
  '2.16.840.1.101.3.4.1.2': 'AES-128-CBC',
  '1.2.840.113549.3.7': 'DES-EDE3-CBC',
};

const PRFS: Record<string, string> = {
  '1.2.840.113549.2.7': 'HMAC-SHA1',
  [OID.hmacWithSha256]: 'HMAC-SHA256',
  '1.2.840.113549.2.10': 'HMAC-SHA384',
  '1.2.840.113549.2.11': 'HMAC-SHA512',
};

import { createPublicKey, type KeyObject, webcrypto } from 'node:crypto';
import { curveName } from '../key-type.js';
import { PkiError } from '../pki-error.js';
import { unencryptedPrivateKey } from './unencrypted-key.js';

export interface SigningKey {
  key: webcrypto.CryptoKey;
  /** The signature algorithm for certificates and CRLs this key signs. */
  algorithm: webcrypto.EcdsaParams | webcrypto.Algorithm;
  /** That algorithm's hash as node:crypto names it, for what we sign ourselves. */
  digest: string;
  publicKey: KeyObject;
}

const EC_HASH: Record<string, string> = {
  'P-256': 'SHA-256',
  'P-384': 'SHA-384',
  'P-521': 'SHA-512',
};

/**
 * Turns a PKCS#8 PEM into a WebCrypto signing key for @peculiar/x509. Node 20
 * has no KeyObject.toCryptoKey, so the key goes through PKCS#8 DER again.
 */
export async function toSigningKey(privatePem: string): Promise<SigningKey> {
  const keyObject = unencryptedPrivateKey(privatePem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const publicKey = createPublicKey(keyObject);
  if (keyObject.asymmetricKeyType === 'ec') {
    const namedCurve = curveName(keyObject.asymmetricKeyDetails?.namedCurve);
    const hash = EC_HASH[namedCurve];
    if (!hash) throw new PkiError('unsupported-key', `unsupported EC curve ${namedCurve}`);
    const key = await webcrypto.subtle.importKey(
      'pkcs8',
      der,
      { name: 'ECDSA', namedCurve },
      false,
      ['sign'],
    );
    return { key, algorithm: { name: 'ECDSA', hash }, digest: hash.replace('-', ''), publicKey };
  }
  if (keyObject.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    const key = await webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
    return { key, algorithm, digest: 'SHA256', publicKey };
  }
  throw new PkiError(
    'unsupported-key',
    `unsupported signing key type ${keyObject.asymmetricKeyType ?? 'unknown'}`,
  );
}

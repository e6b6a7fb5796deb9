import { generateKeyPair as generateNodeKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/** Key types for CAs and TLS certificates (`bridge-ca --key-type`); ECDSA P-384 is the default. */
export type KeyType = 'ecdsa-p384' | 'rsa-4096';

export const KEY_TYPES: readonly KeyType[] = ['ecdsa-p384', 'rsa-4096'];
export const DEFAULT_KEY_TYPE: KeyType = 'ecdsa-p384';

export function isKeyType(value: string): value is KeyType {
  return (KEY_TYPES as readonly string[]).includes(value);
}

const generate = promisify(generateNodeKeyPair);

export interface GeneratedKey {
  /** Unencrypted PKCS#8 PEM. */
  privatePem: string;
  publicKey: KeyObject;
}

/**
 * Native OpenSSL key generation: RSA-4096 takes about a second here, where a
 * pure-JavaScript generator takes tens of seconds and blocks the event loop.
 */
export async function generateKey(keyType: KeyType = DEFAULT_KEY_TYPE): Promise<GeneratedKey> {
  const pair =
    keyType === 'rsa-4096'
      ? await generate('rsa', { modulusLength: 4096, publicExponent: 0x10001 })
      : await generate('ec', { namedCurve: 'P-384' });
  return {
    privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey,
  };
}

/** A short human description such as "ecdsa P-384" or "rsa 4096". */
export function describeKeyObject(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ec':
      return `ecdsa ${curveName(details.namedCurve)}`;
    case 'rsa':
      return `rsa ${details.modulusLength ?? '?'}`;
    default:
      return key.asymmetricKeyType ?? 'unknown';
  }
}

const CURVES: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};

export function curveName(openSslName: string | undefined): string {
  return (openSslName && CURVES[openSslName]) ?? openSslName ?? '?';
}

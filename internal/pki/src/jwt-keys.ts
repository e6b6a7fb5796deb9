import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { PkiError } from './pki-error.js';

const generate = promisify(generateKeyPair);

export interface JwtKeyPair {
  /** PKCS#8 PEM. */
  privatePem: string;
  /** SPKI PEM. */
  publicPem: string;
  /**
   * Public JWK with `kid` and `use: "sig"`. It has no `alg` member on purpose:
   * jose matches a JWK's `alg` literally, so a JWK saying "Ed25519" refuses
   * tokens whose header says "EdDSA" and the reverse; without it both work.
   */
  jwk: Record<string, string>;
  /** RFC 7638 JWK thumbprint (SHA-256, base64url). */
  kid: string;
}

/** An Ed25519 key pair for signing JWTs: the daemon accepts EdDSA (Ed25519) tokens only. */
export async function generateJwtKeyPair(): Promise<JwtKeyPair> {
  const { privateKey, publicKey } = await generate('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ...ed25519PublicParts(publicKey),
  };
}

/** The public PEM, JWK and kid for an Ed25519 key given as a private or public PEM. */
export function ed25519PublicParts(key: KeyObject | string): Omit<JwtKeyPair, 'privatePem'> {
  let publicKey: KeyObject;
  try {
    publicKey =
      typeof key === 'string'
        ? createPublicKey(key.includes('PRIVATE KEY') ? createPrivateKey(key) : key)
        : key.type === 'public'
          ? key
          : createPublicKey(key);
  } catch {
    throw new PkiError('invalid-input', 'not a readable Ed25519 key');
  }
  if (publicKey.asymmetricKeyType !== 'ed25519') {
    throw new PkiError(
      'unsupported-key',
      `JWT keys must be Ed25519, not ${publicKey.asymmetricKeyType}`,
    );
  }
  const { x } = publicKey.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new PkiError('invalid-input', 'Ed25519 key without x');
  const kid = jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x });
  return {
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig' },
    kid,
  };
}

/**
 * RFC 7638: SHA-256 over the required members in lexicographic order with
 * no whitespace. For OKP keys those are crv, kty and x.
 */
export function jwkThumbprint(members: { crv: string; kty: string; x: string }): string {
  const canonical = JSON.stringify({ crv: members.crv, kty: members.kty, x: members.x });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** RFC 8705 certificate thumbprint (`cnf.x5t#S256`): SHA-256 of the DER certificate, base64url. */
export function certificateThumbprint(der: Uint8Array): string {
  return createHash('sha256').update(der).digest('base64url');
}

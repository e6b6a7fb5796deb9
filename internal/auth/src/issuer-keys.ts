import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface IssuerKey {
  /**
   * Key id: the JWK's `kid` when it has one, otherwise the key's RFC 7638
   * thumbprint (what `bridge-ca jwt-mint` puts in the token header).
   */
  kid: string;
  key: KeyObject;
}

/** Ed25519 verification keys by issuer. */
export type IssuerKeys = ReadonlyMap<string, readonly IssuerKey[]>;

/**
 * Loads each issuer's public key file: SPKI PEM, a JWK, or a JWK set
 * ({"keys": [...]}, for rotation). Only Ed25519 keys are accepted.
 */
export async function loadIssuerKeys(
  sources: readonly { issuer: string; keyPath: string }[],
): Promise<IssuerKeys> {
  const out = new Map<string, IssuerKey[]>();
  for (const { issuer, keyPath } of sources) {
    let text: string;
    try {
      text = await readFile(keyPath, 'utf8');
    } catch (err) {
      throw new Error(
        `JWT key for issuer "${issuer}": cannot read ${keyPath}: ${(err as NodeJS.ErrnoException).code}`,
        { cause: err },
      );
    }
    const keys = parseKeys(text, `${keyPath} (issuer "${issuer}")`);
    out.set(issuer, [...(out.get(issuer) ?? []), ...keys]);
  }
  return out;
}

function parseKeys(text: string, where: string): IssuerKey[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let json: { keys?: unknown[]; kid?: string };
    try {
      json = JSON.parse(trimmed);
    } catch {
      // No cause on purpose: JSON.parse quotes the text it read, and a key
      // file may hold a private key; the log shows a cause's message.
      throw new Error(`${where}: not valid JSON`);
    }
    const jwks = Array.isArray(json.keys) ? json.keys : [json];
    return jwks.map((jwk) => {
      const j = jwk as { kid?: unknown; d?: unknown };
      if (j.d !== undefined)
        throw new Error(`${where}: holds a private key; configure the public key only`);
      const key = ed25519(where, { key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
      return { kid: typeof j.kid === 'string' ? j.kid : thumbprint(key), key };
    });
  }
  if (trimmed.includes('PRIVATE KEY')) {
    throw new Error(`${where}: holds a private key; configure the public key only`);
  }
  const key = ed25519(where, trimmed);
  return [{ kid: thumbprint(key), key }];
}

function ed25519(where: string, input: Parameters<typeof createPublicKey>[0]): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(input);
  } catch (err) {
    throw new Error(`${where}: not a public key (${(err as Error).message})`, { cause: err });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`${where}: is a ${key.asymmetricKeyType} key; only Ed25519 is accepted`);
  }
  return key;
}

/** RFC 7638 JWK thumbprint of an Ed25519 public key (members crv, kty, x in order). */
function thumbprint(key: KeyObject): string {
  const { crv, kty, x } = key.export({ format: 'jwk' }) as { crv: string; kty: string; x: string };
  return createHash('sha256').update(JSON.stringify({ crv, kty, x })).digest('base64url');
}

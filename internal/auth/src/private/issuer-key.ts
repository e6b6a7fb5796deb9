import type { KeyObject } from 'node:crypto';
import { AuthError } from '../auth-error.js';
import type { IssuerKeys } from '../issuer-keys.js';

/**
 * The key a token of issuer `iss` must be signed with: the issuer's only
 * key, or the one named by `kid` when the token has one (rotation). An
 * issuer with several keys needs the `kid`.
 */
export function issuerKey(keys: IssuerKeys, iss: string, kid: string | undefined): KeyObject {
  const candidates = keys.get(iss);
  if (!candidates) throw new AuthError('issuer_unknown', 'token issuer is not trusted');
  let key = candidates[0]?.key;
  if (kid !== undefined) {
    key = candidates.find((k) => k.kid === kid)?.key;
    if (!key) {
      throw new AuthError('kid_unknown', 'token key id (kid) is not known for its issuer');
    }
  } else if (candidates.length > 1) {
    throw new AuthError('kid_missing', 'token has no key id (kid) and its issuer has several keys');
  }
  if (!key) throw new AuthError('issuer_unknown', 'token issuer is not trusted');
  return key;
}

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { PkiError } from '../pki-error.js';

/** Reads an unencrypted private key (any PEM form Node reads), or fails as invalid input. */
export function unencryptedPrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new PkiError('invalid-input', 'not a readable unencrypted private key');
  }
}

/**
 * Why a PKI operation refused to go ahead. The CLI maps each code to an exit
 * status, so callers can tell "wrong passphrase" from "not a CA" without
 * parsing messages.
 */
export type PkiErrorCode =
  | 'wrong-passphrase'
  | 'not-a-ca'
  | 'ca-expired'
  | 'key-mismatch'
  | 'invalid-name'
  | 'invalid-san'
  | 'invalid-input'
  | 'unsupported-key';

export class PkiError extends Error {
  override readonly name = 'PkiError';
  constructor(
    readonly code: PkiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

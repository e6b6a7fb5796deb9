import type { PkiErrorCode } from '@agent-bridge/pki';

/** Documented exit statuses (docs/pki.md); scripts may rely on them. */
export const EXIT = {
  ok: 0,
  /** `verify`: the certificate did not validate. */
  verifyFailed: 1,
  /** Bad command line: unknown command or option, missing or invalid value, invalid CN or SAN, a new passphrase too short. */
  usage: 2,
  /** A file: input missing or unreadable, output exists (without --force) or not writable. */
  file: 3,
  /** Passphrase: wrong, empty, or none available. */
  passphrase: 4,
  /** The CA cannot be used: not a CA, expired, key does not match, not the issuer. */
  caRefused: 5,
  /** A file's content is not what was expected (not a certificate, key or CRL; a CA where a leaf is expected). */
  badInput: 6,
  /** A bug: an unexpected error. */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const PKI_ERROR_EXIT: Record<PkiErrorCode, ExitCode> = {
  'wrong-passphrase': EXIT.passphrase,
  'not-a-ca': EXIT.caRefused,
  'ca-expired': EXIT.caRefused,
  'key-mismatch': EXIT.caRefused,
  'invalid-name': EXIT.usage,
  'invalid-san': EXIT.usage,
  'invalid-input': EXIT.badInput,
  'unsupported-key': EXIT.badInput,
};

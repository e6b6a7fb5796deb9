/**
 * Why a call was not authenticated: a stable code for the audit log and
 * metrics. `identity_not_allowed` is the one refusal of a caller whose
 * certificate and token are both valid (the pair is not allowed); every
 * other reason means the caller is not authenticated.
 */
export type AuthReason =
  | 'no_client_certificate'
  | 'token_missing'
  | 'token_malformed'
  | 'token_too_large'
  | 'alg_not_allowed'
  | 'header_not_allowed'
  | 'typ_not_allowed'
  | 'issuer_unknown'
  | 'kid_unknown'
  | 'kid_missing'
  | 'signature_invalid'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'issued_in_future'
  | 'lifetime_too_long'
  | 'audience_mismatch'
  | 'claim_invalid'
  | 'cert_binding_missing'
  | 'cert_binding_mismatch'
  | 'identity_not_allowed';

/**
 * The token was rejected; `message` says why without repeating the token.
 * A refusal that comes from a lower error (jose's) keeps it as `cause`, for
 * the daemon's log; the caller is shown the message only.
 */
export class AuthError extends Error {
  /**
   * Who the verified token names, when the refusal comes after the token
   * was verified (identity_not_allowed): for the audit record, never for
   * the caller's message.
   */
  readonly claims?: { iss: string; sub: string };

  constructor(
    readonly reason: AuthReason,
    message: string,
    options?: ErrorOptions & { claims?: { iss: string; sub: string } },
  ) {
    super(message, options);
    this.name = 'AuthError';
    this.claims = options?.claims;
  }

  /** True when the caller is authenticated but this certificate may not present this issuer's tokens. */
  get forbidden(): boolean {
    return this.reason === 'identity_not_allowed';
  }
}

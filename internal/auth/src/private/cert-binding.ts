import { createHash } from 'node:crypto';
import { AuthError } from '../auth-error.js';

/**
 * RFC 8705 `cnf.x5t#S256`: the token names the client certificate (DER
 * `der`) it may be presented over. Required unless `required` is off, and
 * always checked when present.
 */
export function checkBinding(cnf: unknown, der: Buffer, required: boolean): void {
  if (cnf === undefined) {
    if (!required) return;
    throw new AuthError(
      'cert_binding_missing',
      'token is not bound to a client certificate (cnf.x5t#S256 is required)',
    );
  }
  const want = (cnf as { 'x5t#S256'?: unknown } | null)?.['x5t#S256'];
  if (typeof want !== 'string') {
    throw new AuthError('cert_binding_missing', 'token cnf claim has no x5t#S256');
  }
  const have = createHash('sha256').update(der).digest('base64url');
  if (want !== have) {
    throw new AuthError('cert_binding_mismatch', 'token is not bound to this client certificate');
  }
}

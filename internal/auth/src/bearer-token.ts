import { AuthError } from './auth-error.js';

/** Extracts the token from an `authorization` metadata value ("Bearer <jwt>"). */
export function bearerToken(values: readonly unknown[]): string {
  if (values.length === 0) {
    throw new AuthError('token_missing', 'missing authorization metadata (Bearer token)');
  }
  if (values.length > 1) {
    throw new AuthError('token_malformed', 'several authorization metadata values');
  }
  const v = values[0];
  if (typeof v !== 'string') {
    throw new AuthError('token_malformed', 'authorization metadata must be text');
  }
  const m = /^Bearer ([A-Za-z0-9._-]+)$/.exec(v);
  if (!m) throw new AuthError('token_malformed', 'authorization metadata must be "Bearer <token>"');
  return m[1]!;
}

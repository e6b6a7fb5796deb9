import { PkiError } from './pki-error.js';

/**
 * Client certificates name their identity in a URI SAN,
 * `urn:agent-bridge:client:<cn>`, so the daemon reads the caller from a
 * typed, unambiguous field rather than from the free-form subject DN.
 */
export const CLIENT_IDENTITY_PREFIX = 'urn:agent-bridge:client:';

// Kept to characters that need no escaping in a URN or a log line.
const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidClientName(cn: string): boolean {
  return CLIENT_NAME.test(cn);
}

export function clientIdentityUri(cn: string): string {
  if (!isValidClientName(cn)) {
    throw new PkiError(
      'invalid-name',
      `invalid client name "${cn}": use 1-64 of A-Z a-z 0-9 . _ - starting with a letter or digit`,
    );
  }
  return `${CLIENT_IDENTITY_PREFIX}${cn}`;
}

/** The client name in an identity URI, or undefined for any other URI. */
export function clientNameFromUri(uri: string): string | undefined {
  if (!uri.startsWith(CLIENT_IDENTITY_PREFIX)) return undefined;
  const name = uri.slice(CLIENT_IDENTITY_PREFIX.length);
  return isValidClientName(name) ? name : undefined;
}

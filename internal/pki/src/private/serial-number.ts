import { randomBytes } from 'node:crypto';

/**
 * 128 random bits as hex. @peculiar/x509 strips leading zero bytes and
 * prepends one when the top bit is set, so the DER INTEGER is positive.
 */
export function randomSerialHex(): string {
  return randomBytes(16).toString('hex');
}

import { isIP } from 'node:net';
import { PkiError } from './pki-error.js';

export interface SubjectAltNames {
  dns: string[];
  ip: string[];
  uri: string[];
}

// RFC 1123 labels; a wildcard is allowed only as the whole leftmost label.
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function isDnsName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  return labels.every(
    (label, i) => (i === 0 && label === '*' && labels.length > 2) || DNS_LABEL.test(label),
  );
}

/**
 * Sorts SAN entries into DNS names and IP addresses, refusing anything that
 * is neither: a typo in a SAN otherwise only shows up as a failed handshake.
 */
export function parseSans(entries: readonly string[]): Pick<SubjectAltNames, 'dns' | 'ip'> {
  const dns: string[] = [];
  const ip: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry.length === 0) throw new PkiError('invalid-san', 'empty SAN entry');
    if (isIP(entry)) ip.push(entry);
    else if (isDnsName(entry.toLowerCase())) dns.push(entry.toLowerCase());
    else throw new PkiError('invalid-san', `invalid SAN "${entry}": not a DNS name or IP address`);
  }
  return { dns: [...new Set(dns)], ip: [...new Set(ip)] };
}

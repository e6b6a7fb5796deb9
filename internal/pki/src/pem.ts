import { PkiError } from './pki-error.js';

export interface PemBlock {
  label: string;
  der: Buffer;
  /** The block re-encoded on its own, with a trailing newline. */
  pem: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Every PEM block in a text, in order; other text between blocks is ignored. */
export function splitPem(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(PEM_BLOCK)) {
    const label = match[1] ?? '';
    const der = Buffer.from((match[2] ?? '').replace(/\s+/g, ''), 'base64');
    blocks.push({ label, der, pem: toPem(der, label) });
  }
  return blocks;
}

export function toPem(der: Uint8Array | ArrayBuffer, label: string): string {
  const body = Buffer.from(der instanceof ArrayBuffer ? new Uint8Array(der) : der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${body.replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/** The certificates in a PEM text (a single cert or a bundle). */
export function certificatePems(text: string, what = 'input'): string[] {
  const certs = splitPem(text).filter((block) => block.label === 'CERTIFICATE');
  if (certs.length === 0) throw new PkiError('invalid-input', `${what} holds no PEM certificate`);
  return certs.map((block) => block.pem);
}

/** The single certificate a text must hold. */
export function singleCertificatePem(text: string, what = 'input'): string {
  const certs = certificatePems(text, what);
  if (certs.length !== 1) {
    throw new PkiError('invalid-input', `${what} holds ${certs.length} certificates, expected one`);
  }
  return certs[0] as string;
}

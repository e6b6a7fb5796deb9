import type { CommandContext } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import {
  type CertAndKey,
  type CertificateFacts,
  caDatabasePath,
  certificateFacts,
  decryptPrivateKey,
  isEncryptedPrivateKey,
  PkiError,
} from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { readInput } from './files.js';
import { optionalString, requiredString } from './option-values.js';
import { readPassphrase } from './passphrase.js';

export interface OpenedCa {
  ca: CertAndKey;
  facts: CertificateFacts;
  certPath: string;
  dbPath: string;
}

/** Reads and checks a CA certificate: present, parseable, a CA, not expired. */
export async function readCaCertificate(
  ctx: CommandContext,
  certPath: string,
  what = 'CA certificate',
): Promise<{ pem: string; facts: CertificateFacts }> {
  const pem = await readInput(certPath, what);
  const facts = certificateFacts(pem, `${what} ${certPath}`);
  if (!facts.isCa)
    throw new CliError(EXIT.caRefused, `${certPath} is not a CA certificate (${facts.subject})`);
  const now = ctx.io.now();
  if (facts.notAfter < now) {
    throw new CliError(
      EXIT.caRefused,
      `CA ${facts.subject} expired on ${facts.notAfter.toISOString()}`,
    );
  }
  return { pem, facts };
}

/**
 * Everything cheap is checked before the passphrase is asked for, and the
 * key is decrypted before any output is written, so a wrong passphrase
 * leaves the disk as it was.
 */
export async function openCa(
  ctx: CommandContext,
  certPath: string,
  keyPath: string,
  passphraseFile: string | undefined,
): Promise<OpenedCa> {
  const cert = await readCaCertificate(ctx, certPath);
  const encrypted = await readInput(keyPath, 'CA key');
  if (!isEncryptedPrivateKey(encrypted)) {
    throw new CliError(EXIT.badInput, `CA key ${keyPath} is not an encrypted PKCS#8 key`);
  }
  const passphrase = await readPassphrase(ctx.io, passphraseFile);
  let keyPem: string;
  try {
    keyPem = decryptPrivateKey(encrypted, passphrase);
  } catch (error) {
    if (error instanceof PkiError && error.code === 'wrong-passphrase') {
      throw new CliError(EXIT.passphrase, `wrong passphrase for CA key ${keyPath}`);
    }
    throw error;
  }
  return {
    ca: { certPem: cert.pem, keyPem },
    facts: cert.facts,
    certPath,
    dbPath: caDatabasePath(certPath),
  };
}

/** openCa for the common --ca / --ca-key / --passphrase-file options. */
export function openCaFromOptions(ctx: CommandContext): Promise<OpenedCa> {
  return openCa(
    ctx,
    ctx.path(requiredString(ctx.values, 'ca')),
    ctx.path(requiredString(ctx.values, 'ca-key')),
    optionalString(ctx.values, 'passphrase-file'),
  );
}

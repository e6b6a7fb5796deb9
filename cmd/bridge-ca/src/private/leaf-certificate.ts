import { CliError } from '@agent-bridge/cli';
import { type CertificateFacts, certificateFacts } from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { readInput } from './files.js';

export interface InputCertificate {
  path: string;
  pem: string;
  facts: CertificateFacts;
}

/** The one certificate in a file an option names. */
export async function readCertificateFile(path: string): Promise<InputCertificate> {
  const pem = await readInput(path, 'certificate');
  return { path, pem, facts: certificateFacts(pem, `certificate ${path}`) };
}

/**
 * A CA certificate given where a leaf is expected. Taken as given, the
 * command would act on the CA itself: revoke a root (every path through it
 * then fails a CRL check), bind a token to a certificate no client can use.
 */
export function caNotLeafError(option: string, cert: InputCertificate, fix: string): CliError {
  return new CliError(
    EXIT.badInput,
    `--${option} ${cert.path} is a CA certificate (${cert.facts.subject}), not a leaf: ${fix}`,
  );
}

/** readCertificateFile for an option that takes a leaf: a CA certificate is refused. */
export async function readLeafCertificate(
  option: string,
  path: string,
  fix: string,
): Promise<InputCertificate> {
  const cert = await readCertificateFile(path);
  if (cert.facts.isCa) throw caNotLeafError(option, cert, fix);
  return cert;
}

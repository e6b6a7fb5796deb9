import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { BridgeConfig } from '@agent-bridge/config';
import {
  certificatePems,
  isEncryptedPrivateKey,
  type RevocationList,
  readRevocationLists,
  toPem,
} from '@agent-bridge/pki';

/** One consistent set of TLS files, checked, as the listener uses it. */
export interface TlsMaterial {
  /** Secure-context options, TLS 1.3 only. */
  options: SecureContextOptions;
  /** The CA bundle's certificates: what client chains must lead to. */
  bundle: X509Certificate[];
  /** The CRLs of `tls.crl`, each tied to the CA of the bundle that signed it. */
  revocationLists: RevocationList[];
  /**
   * One line per CRL of `tls.crl` whose issuer is no CA of the bundle: left
   * out, since it can revoke nothing the bundle trusts (a retired CA's list).
   */
  unusedCrls: string[];
  /** SHA-256 over every file's bytes: a watch event that changed nothing is not a reload. */
  digest: string;
}

interface TlsFiles {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  crl: Buffer[];
}

function readFiles(tls: BridgeConfig['tls']): TlsFiles {
  const read = (what: string, path: string) => {
    if (!path)
      throw new Error(`tls.${what} is not configured: the daemon never serves without TLS`);
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`tls.${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code})`, {
        cause: err,
      });
    }
  };
  return {
    ca: read('ca_bundle', tls.caBundle),
    cert: read('cert', tls.cert),
    key: read('key', tls.key),
    crl: tls.crl.map((f) => read('crl', f)),
  };
}

/** Reads the TLS material; throws a clear error naming the missing file. */
export function readTlsFiles(tls: BridgeConfig['tls']): SecureContextOptions {
  const { crl, ...rest } = readFiles(tls);
  return { ...rest, ...(crl.length > 0 ? { crl } : {}) };
}

/**
 * Reads and checks the TLS files as one set. A set that does not belong
 * together (a key that is not the certificate's, a CRL naming a CA of the
 * bundle but not signed by it, a file caught half-written) is refused as a
 * whole, so a reload that fails leaves the previous material in place. The
 * CRL of a CA that is not in the bundle is left out with a warning line
 * (`unusedCrls`): that is how a rotation retires a CA by reload.
 */
export async function loadTlsMaterial(tls: BridgeConfig['tls']): Promise<TlsMaterial> {
  const files = readFiles(tls);
  if (isEncryptedPrivateKey(files.key.toString('utf8'))) {
    throw new Error(
      `tls.key: ${tls.key} is encrypted; the daemon reads an unencrypted key (mode 0600) and never prompts for a passphrase`,
    );
  }
  const base: SecureContextOptions = {
    ca: files.ca,
    cert: files.cert,
    key: files.key,
    minVersion: 'TLSv1.3',
  };
  try {
    // OpenSSL's own check of the set: every PEM parses and the key is the certificate's.
    createSecureContext({ ...base, ...(files.crl.length > 0 ? { crl: files.crl } : {}) });
  } catch (err) {
    throw new Error(
      `the TLS files (tls.cert ${tls.cert}, tls.key ${tls.key}, tls.ca_bundle ${tls.caBundle}${tls.crl.length > 0 ? `, tls.crl ${tls.crl.join(', ')}` : ''}) are not a usable set: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const caText = files.ca.toString('utf8');
  const bundle = certificatePems(caText, `tls.ca_bundle ${tls.caBundle}`).map(
    (pem) => new X509Certificate(pem),
  );
  const revocationLists: RevocationList[] = [];
  const unusedCrls: string[] = [];
  for (const [i, crl] of files.crl.entries()) {
    const what = `tls.crl ${tls.crl[i]}`;
    const onForeignIssuer = (issuer: string) =>
      unusedCrls.push(
        `${what}: the CRL of "${issuer}" belongs to no CA of tls.ca_bundle (a retired CA?) and is not used`,
      );
    revocationLists.push(
      ...(await readRevocationLists(crl.toString('utf8'), [caText], what, { onForeignIssuer })),
    );
  }
  if (files.crl.length > 0 && revocationLists.length === 0) {
    // OpenSSL would then check revocation with no list at all and refuse every client.
    throw new Error(
      `tls.crl: none of its CRLs (${tls.crl.join(', ')}) belongs to a CA of tls.ca_bundle ${tls.caBundle}: every client would be refused (crl_unusable)`,
    );
  }
  // One buffer per list: OpenSSL reads only the first CRL of each buffer,
  // and the lists of retired CAs are left out.
  const options: SecureContextOptions = {
    ...base,
    ...(revocationLists.length > 0
      ? { crl: revocationLists.map((list) => toPem(list.der, 'X509 CRL')) }
      : {}),
  };
  const hash = createHash('sha256');
  for (const part of [files.ca, files.cert, files.key, ...files.crl]) {
    hash.update(createHash('sha256').update(part).digest());
  }
  return { options, bundle, revocationLists, unusedCrls, digest: hash.digest('hex') };
}

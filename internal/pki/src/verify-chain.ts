import * as pkijs from 'pkijs';
import { EKU } from './certificate-facts.js';
import { certificatePems, toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { crlWithoutEmptyEntryExtensions } from './private/crl-entry-extensions.js';
import { x509 } from './private/x509.js';
import { parseCrlBlocks } from './revocation-list.js';

export type Purpose = 'server' | 'client';

export interface VerifyChainOptions {
  /** The certificate to check; further certificates after it are untrusted intermediates. */
  certPem: string;
  /** Trust bundle(s): self-signed roots are the anchors, other CA certs (cross-signed) intermediates. */
  bundlePems: string[];
  /** With CRLs, every certificate in the path below the root needs a current CRL from its issuer. */
  crlPems?: string[];
  purpose?: Purpose;
  at?: Date;
}

export type VerifyChainResult =
  | {
      ok: true;
      /** Subjects from the certificate checked (always the first of `certPem`) up to a root. */
      chain: string[];
      chainPems: string[];
      /** The certificate is itself a root of the bundle: trusted as given, nothing above it. */
      trustAnchor: boolean;
    }
  | { ok: false; reason: string };

interface Parsed {
  pem: string;
  cert: x509.X509Certificate;
}

const PURPOSE_EKU: Record<Purpose, string> = { server: EKU.serverAuth, client: EKU.clientAuth };

/**
 * Full path validation with pkijs (signatures, name chaining, validity, CA
 * flags, key usage, CRLs), plus the checks pkijs leaves out: basicConstraints
 * path length and the leaf's extended key usage for the purpose. On failure
 * the path is walked again to name the certificate and the exact cause.
 * The certificate checked is always the first of `certPem`, CA or not; one
 * that is itself a root of the bundle is trusted as it is (as OpenSSL does).
 */
export async function verifyChain(opts: VerifyChainOptions): Promise<VerifyChainResult> {
  const at = opts.at ?? new Date();
  const [leaf, ...untrusted] = certificatePems(opts.certPem, 'certificate').map(parse);
  if (!leaf) throw new PkiError('invalid-input', 'no certificate to verify');
  const bundle = opts.bundlePems.flatMap((pem) => certificatePems(pem, 'bundle')).map(parse);
  const trusted: Parsed[] = [];
  const intermediates: Parsed[] = [...untrusted];
  for (const item of bundle) ((await isSelfSigned(item.cert)) ? trusted : intermediates).push(item);
  if (trusted.length === 0) return { ok: false, reason: 'the bundle holds no self-signed root CA' };
  if (trusted.some((root) => sameCertificate(root, leaf))) {
    return trustAnchorResult(leaf.cert, at, opts.purpose);
  }
  // pkijs drops a certificate it holds twice, keeping the first copy, and then
  // validates whatever came last: the certificate given must be there once.
  const others = intermediates.filter((item) => !sameCertificate(item, leaf));
  const crls = (opts.crlPems ?? []).flatMap((text) => parseCrlBlocks(text));

  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: trusted.map(toPkijs),
    // pkijs takes the last element as the end entity.
    certs: [...others.map(toPkijs), toPkijs(leaf)],
    crls: crls.map(toPkijsCrl),
    checkDate: at,
  });
  const result = await engine.verify({ passedWhenNotRevValues: false });
  if (!result.result || !result.certificatePath) {
    const pool = [...others, ...trusted];
    return { ok: false, reason: await explainFailure(leaf, pool, crls, at, result.resultMessage) };
  }
  const path = result.certificatePath.map(
    (c) => new x509.X509Certificate(c.toSchema().toBER(false)),
  );
  const first = path[0] as x509.X509Certificate;
  if (!sameBytes(first, leaf.cert)) {
    throw new Error(`path validation checked "${first.subject}" instead of "${leaf.cert.subject}"`);
  }
  const extra = checkPathLength(path) ?? checkPurpose(first, opts.purpose);
  if (extra) return { ok: false, reason: extra };
  return {
    ok: true,
    chain: path.map((c) => c.subject),
    chainPems: path.map((c) => toPem(c.rawData, 'CERTIFICATE')),
    trustAnchor: false,
  };
}

/** A root of the bundle is trusted as it is: only its dates and the purpose are checked. */
function trustAnchorResult(
  root: x509.X509Certificate,
  at: Date,
  purpose: Purpose | undefined,
): VerifyChainResult {
  const reason = validityProblem(root, at) ?? checkPurpose(root, purpose);
  if (reason) return { ok: false, reason };
  return {
    ok: true,
    chain: [root.subject],
    chainPems: [toPem(root.rawData, 'CERTIFICATE')],
    trustAnchor: true,
  };
}

function sameCertificate(a: Parsed, b: Parsed): boolean {
  return sameBytes(a.cert, b.cert);
}

function sameBytes(a: x509.X509Certificate, b: x509.X509Certificate): boolean {
  return Buffer.from(a.rawData).equals(Buffer.from(b.rawData));
}

function validityProblem(cert: x509.X509Certificate, at: Date): string | undefined {
  if (cert.notAfter < at) return `${quote(cert)} expired on ${cert.notAfter.toISOString()}`;
  if (cert.notBefore > at)
    return `${quote(cert)} is not valid before ${cert.notBefore.toISOString()}`;
  return undefined;
}

function parse(pem: string): Parsed {
  try {
    return { pem, cert: new x509.X509Certificate(pem) };
  } catch {
    throw new PkiError('invalid-input', 'a certificate could not be parsed');
  }
}

function toPkijs(item: Parsed): pkijs.Certificate {
  return pkijs.Certificate.fromBER(item.cert.rawData);
}

/**
 * pkijs refuses a CRL entry with an empty crlEntryExtensions SEQUENCE, which
 * bridge-ca wrote before and OpenSSL, Node and the daemon accept. Such a CRL
 * is parsed without those SEQUENCEs, and its signature checked over the TBS
 * as the CA signed it.
 */
function toPkijsCrl(crl: x509.X509Crl): pkijs.CertificateRevocationList {
  const raw = Buffer.from(crl.rawData);
  const cleaned = crlWithoutEmptyEntryExtensions(raw);
  let parsed: pkijs.CertificateRevocationList;
  try {
    parsed = pkijs.CertificateRevocationList.fromBER(cleaned?.crl ?? raw);
  } catch {
    throw new PkiError(
      'invalid-input',
      `the CRL of "${crl.issuer}" cannot be read for path validation (not a well-formed X.509 CRL)`,
    );
  }
  if (cleaned) parsed.tbsView = new Uint8Array(cleaned.signedTbs);
  return parsed;
}

async function isSelfSigned(cert: x509.X509Certificate): Promise<boolean> {
  return cert.subject === cert.issuer && (await signedBy(cert, cert));
}

async function signedBy(cert: x509.X509Certificate, issuer: x509.X509Certificate) {
  try {
    return await cert.verify({ publicKey: issuer.publicKey, signatureOnly: true });
  } catch {
    return false;
  }
}

function quote(cert: x509.X509Certificate): string {
  return `"${cert.subject}"`;
}

/** pkijs does not enforce pathLenConstraint; count non-self-issued CAs below each CA. */
function checkPathLength(path: x509.X509Certificate[]): string | undefined {
  for (let i = 1; i < path.length; i++) {
    const cert = path[i] as x509.X509Certificate;
    const limit = cert.getExtension(x509.BasicConstraintsExtension)?.pathLength;
    if (limit === undefined) continue;
    const below = path.slice(1, i).filter((c) => c.subject !== c.issuer).length;
    if (below > limit) {
      return `path length constraint exceeded: ${quote(cert)} allows ${limit} CA certificate(s) below it, the path has ${below}`;
    }
  }
  return undefined;
}

function checkPurpose(
  leaf: x509.X509Certificate,
  purpose: Purpose | undefined,
): string | undefined {
  if (!purpose) return undefined;
  if (leaf.getExtension(x509.BasicConstraintsExtension)?.ca) {
    return `${quote(leaf)} is a CA certificate, not a ${purpose} certificate`;
  }
  const usages = (leaf.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? []).map(String);
  if (!usages.includes(PURPOSE_EKU[purpose]) && !usages.includes(EKU.any)) {
    const name = purpose === 'server' ? 'serverAuth' : 'clientAuth';
    return `unsuitable purpose: ${quote(leaf)} has no ${name} extended key usage`;
  }
  return undefined;
}

/** Follows issuers by name and signature for a precise failure reason. */
async function walkPath(
  leaf: Parsed,
  pool: Parsed[],
): Promise<{ path: x509.X509Certificate[]; stop?: string }> {
  const path = [leaf.cert];
  for (let current = leaf.cert; !(await isSelfSigned(current)); ) {
    const named = pool.filter((p) => p.cert.subject === current.issuer && !path.includes(p.cert));
    let issuer: x509.X509Certificate | undefined;
    for (const candidate of named) {
      if (await signedBy(current, candidate.cert)) {
        issuer = candidate.cert;
        break;
      }
    }
    if (!issuer) {
      const stop =
        named.length > 0
          ? `the signature of ${quote(current)} does not verify with the key of any "${current.issuer}" in the bundle`
          : `no trusted path: the issuer "${current.issuer}" of ${quote(current)} is not in the bundle`;
      return { path, stop };
    }
    path.push(issuer);
    current = issuer;
  }
  return { path };
}

async function explainFailure(
  leaf: Parsed,
  pool: Parsed[],
  crls: x509.X509Crl[],
  at: Date,
  engineMessage: string,
): Promise<string> {
  const { path, stop } = await walkPath(leaf, pool);
  if (stop) return stop;
  if (path.length === 1) {
    return `${quote(leaf.cert)} is self-signed and is not a root of the bundle`;
  }
  for (const cert of path) {
    const problem = validityProblem(cert, at);
    if (problem) return problem;
  }
  for (const cert of path.slice(1)) {
    if (!cert.getExtension(x509.BasicConstraintsExtension)?.ca) {
      return `${quote(cert)} signs other certificates but is not a CA certificate`;
    }
  }
  if (crls.length > 0) {
    for (let i = 0; i < path.length - 1; i++) {
      const cert = path[i] as x509.X509Certificate;
      const issuer = path[i + 1] as x509.X509Certificate;
      const fromIssuer = crls.filter((crl) => crl.issuer === cert.issuer);
      const valid: x509.X509Crl[] = [];
      for (const crl of fromIssuer) {
        if (await crl.verify({ publicKey: issuer.publicKey }).catch(() => false)) valid.push(crl);
      }
      for (const crl of valid) {
        const entry = crl.findRevoked(cert.serialNumber);
        if (entry) {
          const reason =
            entry.reason === undefined ? 'unspecified' : x509.X509CrlReason[entry.reason];
          return `${quote(cert)} (serial ${cert.serialNumber}) was revoked on ${entry.revocationDate.toISOString()}, reason: ${reason}`;
        }
      }
      const current = valid.filter((crl) => !crl.nextUpdate || crl.nextUpdate >= at);
      if (current.length === 0) {
        const what =
          valid.length > 0
            ? 'only an expired CRL'
            : fromIssuer.length > 0
              ? 'no CRL with a valid signature'
              : 'no CRL';
        return `${what} from "${cert.issuer}" to check ${quote(cert)}; with --crl every CA in the path needs a current CRL`;
      }
    }
  }
  return engineMessage || 'the certificate path did not validate';
}

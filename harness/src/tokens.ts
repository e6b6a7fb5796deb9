import { createHash, createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';

export interface TokenOptions {
  privatePem: string;
  iss?: string;
  sub?: string;
  project?: string | undefined;
  aud?: string | string[];
  /** Seconds relative to now. */
  iatOffset?: number;
  ttl?: number;
  extra?: Record<string, unknown>;
  header?: Record<string, unknown>;
  bindCertPem?: string;
}

/** Mints an EdDSA token as a control plane would. */
export async function mintToken(o: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000) + (o.iatOffset ?? 0);
  const claims: Record<string, unknown> = { ...o.extra };
  if (o.project !== undefined) claims.project_id = o.project;
  if (o.bindCertPem) {
    const der = Buffer.from(o.bindCertPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    claims.cnf = { 'x5t#S256': createHash('sha256').update(der).digest('base64url') };
  }
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', ...o.header })
    .setIssuedAt(now)
    .setExpirationTime(now + (o.ttl ?? 300));
  if (o.iss !== '') jwt.setIssuer(o.iss ?? 'control');
  if (o.sub !== '') jwt.setSubject(o.sub ?? 'tester');
  if (o.aud !== '') jwt.setAudience(o.aud ?? 'bridge');
  return jwt.sign(createPrivateKey(o.privatePem));
}

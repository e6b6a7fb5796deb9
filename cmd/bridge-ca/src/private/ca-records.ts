import {
  type CaDatabase,
  type CertificateFacts,
  readCaDatabase,
  writeCaDatabase,
} from '@agent-bridge/pki';
import type { OpenedCa } from './open-ca.js';

/** Reads the CA's database, applies a change and writes it back. */
export async function updateCaDatabase(
  opened: OpenedCa,
  change: (db: CaDatabase) => void,
): Promise<CaDatabase> {
  const db = await readCaDatabase(opened.dbPath, opened.facts);
  change(db);
  await writeCaDatabase(opened.dbPath, db);
  return db;
}

/** A certificate's facts as --json prints them. */
export function certificateJson(facts: CertificateFacts): Record<string, unknown> {
  return {
    subject: facts.subject,
    issuer: facts.issuer,
    serial: facts.serialHex,
    kind: facts.kind,
    notBefore: facts.notBefore.toISOString(),
    notAfter: facts.notAfter.toISOString(),
    dns: facts.sans.dns,
    ip: facts.sans.ip,
    uri: facts.sans.uri,
    keyType: facts.keyType,
    fingerprintSha256: facts.fingerprintSha256,
  };
}

export function sanSummary(facts: CertificateFacts): string {
  const all = [...facts.sans.dns, ...facts.sans.ip, ...facts.sans.uri];
  return all.length ? all.join(', ') : '(none)';
}

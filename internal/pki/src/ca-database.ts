import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { CertificateFacts } from './certificate-facts.js';
import { PkiError } from './pki-error.js';

/**
 * The CA database: a JSON index of every certificate a CA issued and which
 * of them are revoked, kept beside the CA certificate (`ca.crt` →
 * `ca.db.json`). `crl` reads the revocations from it; the CRL number
 * counter lives here too so numbers only grow.
 */
export interface CaDatabase {
  version: 1;
  ca: { subject: string; serial: string };
  crlNumber: number;
  certificates: CaDatabaseEntry[];
}

export interface CaDatabaseEntry {
  serial: string;
  subject: string;
  kind: string;
  notBefore: string;
  notAfter: string;
  issuedAt: string;
  /** The file the certificate was written to, when known. */
  file?: string;
  revoked?: { date: string; reason: string };
}

export function caDatabasePath(caCertPath: string): string {
  const name = basename(caCertPath, extname(caCertPath));
  return join(dirname(caCertPath), `${name}.db.json`);
}

export function emptyCaDatabase(ca: CertificateFacts): CaDatabase {
  return {
    version: 1,
    ca: { subject: ca.subject, serial: ca.serialHex },
    crlNumber: 0,
    certificates: [],
  };
}

/** Reads the database, or starts an empty one when the file does not exist yet. */
export async function readCaDatabase(path: string, ca: CertificateFacts): Promise<CaDatabase> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyCaDatabase(ca);
    throw error;
  }
  let db: CaDatabase;
  try {
    db = JSON.parse(text) as CaDatabase;
  } catch {
    throw new PkiError('invalid-input', `${path} is not valid JSON`);
  }
  if (db.version !== 1 || !Array.isArray(db.certificates)) {
    throw new PkiError('invalid-input', `${path} is not a bridge-ca database`);
  }
  if (db.ca.serial !== ca.serialHex) {
    throw new PkiError('invalid-input', `${path} belongs to another CA (${db.ca.subject})`);
  }
  return db;
}

/** Writes through a temporary file and rename, so a crash never leaves half a database. */
export async function writeCaDatabase(path: string, db: CaDatabase): Promise<void> {
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(db, null, 2)}\n`, { mode: 0o644 });
  await rename(temp, path);
}

export function recordIssued(
  db: CaDatabase,
  cert: CertificateFacts,
  opts: { file?: string; kind?: string; now?: Date } = {},
): void {
  const { file, now = new Date() } = opts;
  const entry: CaDatabaseEntry = {
    serial: cert.serialHex,
    subject: cert.subject,
    kind: opts.kind ?? cert.kind,
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    issuedAt: now.toISOString(),
  };
  if (file) entry.file = file;
  db.certificates.push(entry);
}

export function findEntry(db: CaDatabase, serialHex: string): CaDatabaseEntry | undefined {
  const wanted = normalizeSerial(serialHex);
  return db.certificates.find((entry) => normalizeSerial(entry.serial) === wanted);
}

/** Lower-case hex without leading zero bytes or separators, as certificates print serials differently. */
export function normalizeSerial(serial: string): string {
  return serial
    .replace(/[:\s]/g, '')
    .toLowerCase()
    .replace(/^(00)+(?=.)/, '');
}

export function revokedEntries(
  db: CaDatabase,
): { serialHex: string; date: Date; reason: string }[] {
  return db.certificates.flatMap((entry) =>
    entry.revoked
      ? [
          {
            serialHex: entry.serial,
            date: new Date(entry.revoked.date),
            reason: entry.revoked.reason,
          },
        ]
      : [],
  );
}

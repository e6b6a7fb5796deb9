import { closeSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Audit, AuditRecord, Redactor } from '@agent-bridge/bridge';
import { makeDirectories } from '@agent-bridge/providers/host';
import pino, { type Logger } from 'pino';
import { jsonLine } from './json-line.js';

export interface AuditLog {
  readonly audit: Audit;
  /** Reopens the file (after the operator renamed it for rotation). */
  reopen(): void;
  /** Flushes and closes the file. */
  close(): void;
}

/**
 * The audit trail as a JSON-lines file: one object per record, written
 * synchronously so a record exists before the call it describes is
 * answered, mode 0600, every string redacted. With no path, records go to
 * the daemon log instead, so none is lost.
 */
export function createAuditLog(opts: {
  path: string;
  redact: Redactor;
  logger: Logger;
  now?: () => Date;
}): AuditLog {
  const now = opts.now ?? (() => new Date());
  if (opts.path === '') {
    return {
      // Built only when the log keeps it: redacting every field of every call costs.
      audit: (r) => {
        if (opts.logger.isLevelEnabled('info')) {
          opts.logger.info({ audit: auditLine(r, now(), opts.redact) }, 'audit');
        }
      },
      reopen: () => undefined,
      close: () => undefined,
    };
  }
  openForAppending(opts.path);
  const dest = pino.destination({
    dest: opts.path,
    sync: true,
    append: true,
    mkdir: false,
    mode: 0o600,
  });
  return {
    audit: (r) => {
      dest.write(`${jsonLine(auditLine(r, now(), opts.redact))}\n`);
    },
    reopen: () => dest.reopen(),
    close: () => dest.end(),
  };
}

/**
 * Creates the file (and its directory) if need be, once, with a clear
 * error. Not left to pino's `mkdir`, a recursive mkdirSync: on Node 20 a
 * directory that cannot be made (under /proc, say) makes that retry
 * without end, and the daemon neither started nor exited.
 */
function openForAppending(path: string): void {
  try {
    makeDirectories(dirname(path), 0o700);
  } catch (err) {
    throw new Error(`cannot create the directory of ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    closeSync(openSync(path, 'a', 0o600));
  } catch (err) {
    throw new Error(`cannot open ${path} for appending (${(err as NodeJS.ErrnoException).code})`, {
      cause: err,
    });
  }
}

/**
 * Longest field written, in characters. Fields can carry caller input (a
 * refused call's session id), so they are cut, but only after redaction:
 * a cut first could leave a prefix no rule recognises any more.
 */
export const MAX_AUDIT_FIELD = 256;

/** A record as written: flat, snake_case, only the fields that are set, strings redacted, then bounded. */
export function auditLine(r: AuditRecord, at: Date, redact: Redactor): Record<string, string> {
  const id = r.identity ?? {};
  // In the order written; undefined and empty fields are left out.
  const fields: Record<string, string | undefined> = {
    time: at.toISOString(),
    kind: r.kind,
    outcome: r.outcome,
    reason: r.reason,
    method: r.method,
    session_id: r.sessionId,
    project_id: r.projectId,
    peer: id.peer,
    cert_serial: id.certSerial,
    cert_fingerprint: id.certFingerprint,
    cert_identity: id.certIdentity,
    iss: id.iss,
    sub: id.sub,
    detail: r.detail,
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v !== undefined && v !== '') out[k] = bounded(redact(v));
  }
  return out;
}

function bounded(v: string): string {
  return v.length <= MAX_AUDIT_FIELD ? v : `${v.slice(0, MAX_AUDIT_FIELD)}…(${v.length} chars)`;
}

import type { Audit, AuditRecord, Redactor } from '@agent-bridge/bridge';
import pino, { type Logger } from 'pino';

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
  const dest = pino.destination({
    dest: opts.path,
    sync: true,
    append: true,
    mkdir: true,
    mode: 0o600,
  });
  return {
    audit: (r) => {
      dest.write(`${JSON.stringify(auditLine(r, now(), opts.redact))}\n`);
    },
    reopen: () => dest.reopen(),
    close: () => dest.end(),
  };
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
  const fields: [string, string | undefined][] = [
    ['time', at.toISOString()],
    ['kind', r.kind],
    ['outcome', r.outcome],
    ['reason', r.reason],
    ['method', r.method],
    ['session_id', r.sessionId],
    ['project_id', r.projectId],
    ['peer', id.peer],
    ['cert_serial', id.certSerial],
    ['cert_fingerprint', id.certFingerprint],
    ['cert_identity', id.certIdentity],
    ['iss', id.iss],
    ['sub', id.sub],
    ['detail', r.detail],
  ];
  const out: Record<string, string> = {};
  for (const [k, v] of fields) if (v !== undefined && v !== '') out[k] = bounded(redact(v));
  return out;
}

function bounded(v: string): string {
  return v.length <= MAX_AUDIT_FIELD ? v : `${v.slice(0, MAX_AUDIT_FIELD)}…(${v.length} chars)`;
}

/**
 * The audit trail: one record per decision or lifecycle action. The server
 * writes one `call` record per RPC (allowed, or refused with the reason)
 * and the `tls` and `connection` records; the core writes `session` and
 * `permission` records. Where records go (a JSON-lines file, the log) is
 * the daemon's choice, passed in as an `Audit`.
 */
export type Audit = (record: AuditRecord) => void;

/** What a record is about. */
export type AuditKind = 'call' | 'tls' | 'connection' | 'session' | 'permission' | 'collab';

export interface AuditRecord {
  kind: AuditKind;
  /** allow/deny for decisions; ok/error for actions. */
  outcome: 'allow' | 'deny' | 'ok' | 'error';
  /**
   * A stable, machine-readable code: what was decided and why
   * ("token_expired", "session_started", "cert_revoked"). Documented in
   * docs/security.md; never changes meaning.
   */
  reason: string;
  /** The RPC, when the record belongs to a call ("StartSession"). */
  method?: string;
  sessionId?: string;
  projectId?: string;
  /** Free text for people; never a token or a secret (redacted again on write). */
  detail?: string;
  /** Who: the caller's identity as far as it is known. */
  identity?: AuditIdentity;
}

/**
 * The caller's identity as the transport and the token established it.
 * Opaque to the core, which copies it into its records.
 */
export interface AuditIdentity {
  /** Remote address and port. */
  peer?: string;
  /** Client certificate serial (hex) and SHA-256 fingerprint. */
  certSerial?: string;
  certFingerprint?: string;
  /** Subject CN or URI SAN of the client certificate. */
  certIdentity?: string;
  iss?: string;
  sub?: string;
}

/** Records nothing: for embedders and tests that do not audit. */
export const noAudit: Audit = () => undefined;

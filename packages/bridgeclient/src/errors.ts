import { type ServiceError, status } from '@grpc/grpc-js';
import {
  ERROR_PREFIX,
  readRefusal,
  type TlsRefusal,
  type TlsRefusalReason,
} from './private/tls-refusal.js';

export type { TlsRefusalReason };

/** The gRPC status codes by name, as `BridgeError.code` carries them. */
export type StatusName = keyof typeof status;

/**
 * A call the daemon (or the connection) refused. `code` is the gRPC status
 * name, `details` the daemon's message: meant for people, never for
 * matching. Catch a subclass for the codes a caller acts on.
 */
export class BridgeError extends Error {
  /** The gRPC status, e.g. "NOT_FOUND". */
  readonly code: StatusName;
  /** What the daemon said, without the method name. */
  readonly details: string;
  /** The RPC that failed, e.g. "StartSession"; empty when none did. */
  readonly method: string;
  /** How long the daemon asked the caller to wait before trying again, when it did. */
  readonly retryAfterMs: number | undefined;
  /** On a failed startSession: the session id it was sent with (generated when none was given). */
  readonly sessionId?: string;
  /** On a failed sendInput: the idempotency key it was sent with; resend with it to stay safe. */
  readonly idempotencyKey?: string;

  constructor(
    code: StatusName,
    details: string,
    opts: { method?: string; retryAfterMs?: number; cause?: unknown } & CallContext = {},
  ) {
    super(
      `${opts.method ? `${opts.method}: ` : ''}${details || code}`,
      opts.cause ? { cause: opts.cause } : undefined,
    );
    this.name = new.target.name;
    this.code = code;
    this.details = details;
    this.method = opts.method ?? '';
    this.retryAfterMs = opts.retryAfterMs;
    if (opts.sessionId !== undefined) this.sessionId = opts.sessionId;
    if (opts.idempotencyKey !== undefined) this.idempotencyKey = opts.idempotencyKey;
  }
}

/** What the client generated for a call, carried by its error so the caller can retry with it. */
export interface CallContext {
  sessionId?: string;
  idempotencyKey?: string;
}

/** A request the daemon found malformed or against its policy; retrying cannot help. */
export class InvalidArgumentError extends BridgeError {}
/** No such session in the caller's project (or it was freed after its retention). */
export class NotFoundError extends BridgeError {}
/** The session id is in use with other parameters. */
export class AlreadyExistsError extends BridgeError {}
/** The token is not valid for what was asked (another project, a path outside the allowed roots). */
export class PermissionDeniedError extends BridgeError {}
/** The token was refused: expired, wrong issuer or audience, bound to another certificate. */
export class UnauthenticatedError extends BridgeError {}
/** The session or provider is not in a state to do this (not running, provider unavailable). */
export class FailedPreconditionError extends BridgeError {}
/** A limit was reached: sessions, subscribers, or a rate. */
export class ResourceExhaustedError extends BridgeError {}
/** A seq beyond the session's last one. */
export class OutOfRangeError extends BridgeError {}
/** The daemon could not be reached, or is shutting down. */
export class UnavailableError extends BridgeError {}
/**
 * TLS, not the network, stopped the connection: the daemon refused this
 * client's certificate, or this client refused the daemon's. It is an
 * UnavailableError (grpc-js reports it as UNAVAILABLE, and a fleet or a
 * task treats that daemon as out of reach), but it is never retried: a
 * certificate that was refused is refused again until someone changes a
 * certificate, a CRL or the settings.
 */
export class TlsRefusalError extends UnavailableError {
  /**
   * `client_certificate`: the daemon refused this client's certificate
   * (revoked, expired, from a CA it does not trust, not for client
   * authentication); `server_certificate`: the daemon's certificate does
   * not chain to `mtls.ca`; `server_name`: it does not carry the expected
   * name or IP address (`mtls.serverName`, else the target's host);
   * `handshake`: the daemon refused the handshake for another reason.
   */
  readonly reason: TlsRefusalReason;
  /**
   * The TLS alert received (`certificate_revoked`) or Node's code of the
   * failed check (`SELF_SIGNED_CERT_IN_CHAIN`, `ERR_TLS_CERT_ALTNAME_INVALID`);
   * empty when the daemon closed the connection right after the handshake
   * without an alert, which is how it refuses a client certificate.
   */
  readonly tlsCode: string;

  constructor(
    details: string,
    refusal: TlsRefusal,
    opts: { method?: string; cause?: unknown } & CallContext = {},
  ) {
    super('UNAVAILABLE', details, opts);
    this.reason = refusal.reason;
    this.tlsCode = refusal.code;
  }
}
/** The call's deadline passed. */
export class DeadlineExceededError extends BridgeError {}
/**
 * The daemon serves another history than the one the cursor was taken in
 * (Health's `historyId` changed: its session store is new or was wiped,
 * or it keeps sessions in memory and restarted): the session, its events
 * and the cursor are gone, so resuming is impossible. Start over. A
 * restart that kept the store is not this: the stream just continues.
 */
export class CursorLostError extends BridgeError {
  constructor(
    details: string,
    /** The history the cursor was taken in. */
    readonly previousInstanceId: string,
    /** The history the daemon serves now (its `historyId`). */
    readonly instanceId: string,
  ) {
    super('DATA_LOSS', details);
  }
}

const SUBCLASS: Partial<Record<StatusName, typeof BridgeError>> = {
  INVALID_ARGUMENT: InvalidArgumentError,
  NOT_FOUND: NotFoundError,
  ALREADY_EXISTS: AlreadyExistsError,
  PERMISSION_DENIED: PermissionDeniedError,
  UNAUTHENTICATED: UnauthenticatedError,
  FAILED_PRECONDITION: FailedPreconditionError,
  RESOURCE_EXHAUSTED: ResourceExhaustedError,
  OUT_OF_RANGE: OutOfRangeError,
  UNAVAILABLE: UnavailableError,
  DEADLINE_EXCEEDED: DeadlineExceededError,
};

const NAMES = new Map(Object.entries(status).map(([name, n]) => [n, name as StatusName]));

/** The trailer a daemon sets on a refusal worth retrying after a pause (gRPC's own convention). */
const PUSHBACK = 'grpc-retry-pushback-ms';

/** grpc-js's text of a channel that has no connection, with what failed last and its resolver's note. */
const NO_CONNECTION =
  /^No connection established\. Last error: ([\s\S]*?)\. Resolution note: ([\s\S]*)$/;

/**
 * grpc-js's text of a failed connection, made readable: "no connection to
 * the daemon: connect ECONNREFUSED 127.0.0.1:1" instead of "No connection
 * established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1.
 * Resolution note: ", without its time stamps and empty notes; and the TLS
 * refusal it reports, if it does.
 */
function unavailableDetails(details: string): { details: string; tlsRefusal?: TlsRefusal } {
  const m = NO_CONNECTION.exec(details);
  const last = (m ? (m[1] ?? '') : details)
    .replace(ERROR_PREFIX, '')
    .replace(/ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/, '');
  const tls = readRefusal(last);
  if (tls) return { details: tls.sentence, tlsRefusal: tls.refusal };
  if (!m) return { details };
  const note = (m[2] ?? '').trim();
  const why = last && last !== 'null' ? `: ${last}` : '';
  return { details: `no connection to the daemon${why}${note ? `; ${note}` : ''}` };
}

/** A grpc-js failure as the BridgeError subclass of its code. */
export function fromServiceError(
  err: ServiceError,
  method: string,
  context: CallContext = {},
): BridgeError {
  const code = NAMES.get(err.code) ?? 'UNKNOWN';
  const pushback = Number(err.metadata?.get(PUSHBACK)[0]);
  const opts = {
    ...context,
    method,
    cause: err,
    ...(Number.isFinite(pushback) && pushback >= 0 ? { retryAfterMs: pushback } : {}),
  };
  const details = err.details ?? err.message;
  if (code === 'UNAVAILABLE') {
    const clean = unavailableDetails(details);
    return clean.tlsRefusal
      ? new TlsRefusalError(clean.details, clean.tlsRefusal, { ...context, method, cause: err })
      : new UnavailableError(code, clean.details, opts);
  }
  const Class = SUBCLASS[code] ?? BridgeError;
  return new Class(code, details, opts);
}

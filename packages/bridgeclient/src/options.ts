import type { CursorStore } from './cursor-store.js';

/** A PEM: its text (or bytes), or the path of a file holding it. */
export type PemSource = string | Buffer;

export interface MtlsOptions {
  /** The CA bundle the daemon's certificate must chain to. */
  ca: PemSource;
  /** This client's certificate (the leaf first, then any intermediates). */
  cert: PemSource;
  /** This client's private key (unencrypted PKCS#8 or PKCS#1/SEC1). */
  key: PemSource;
  /** The name the daemon's certificate must carry, when it is not the target's host. */
  serverName?: string;
}

export interface JwtOptions {
  /** The Ed25519 private key (PKCS#8) that signs the tokens. */
  privateKey: PemSource;
  /** `iss`: the issuer the daemon knows this key by. */
  issuer: string;
  /** `sub`: who is calling (a service name). */
  subject: string;
  /** `project_id`: the project this client acts for. */
  projectId: string;
  /** `aud`: the daemon's audience. Default "bridge". */
  audience?: string;
  /** Token lifetime: milliseconds or "30s", "5m". At most the daemon's `jwt_max_ttl`. Default "5m". */
  ttl?: number | string;
  /** Bind each token to the client certificate (`cnf.x5t#S256`), so it is useless elsewhere. Default true. */
  bindToCert?: boolean;
  /**
   * The `kid` header: how the daemon tells this issuer's keys apart when it
   * has several. Default: the key's RFC 7638 thumbprint, which is what
   * `bridge-ca jwt-keygen` reports and the daemon computes.
   */
  keyId?: string;
}

/**
 * Returns a bearer token for the daemon: a JWT (compact JWS) with `exp`,
 * for this client's project, bound to its certificate if the daemon
 * requires it (`cnf.x5t#S256`). `renew` is true when the daemon ended a
 * stream because the previous token expired: return a newer one.
 */
export type TokenFunction = (ctx: { renew: boolean }) => Promise<string>;

/** Tokens minted elsewhere (a KMS, another service) instead of with a local key. */
export interface JwtFunctionOptions {
  /**
   * Called when the client has no token, when the one it has has a quarter
   * of its lifetime left (read from its `iat` and `exp`), and after the
   * daemon ended a stream for an expired token. Concurrent calls share one
   * call of it. A failure fails the call that needed the token.
   */
  token: TokenFunction;
  /** `project_id` of those tokens: the project this client acts for. */
  projectId: string;
}

export interface RetryOptions {
  /**
   * Attempts per call, the first included, all within the call's deadline.
   * Default 10: with the default delays, retries span a daemon restart of
   * several seconds. 1 turns retries off.
   */
  maxAttempts?: number;
  /** Ceiling of the first backoff; each next one doubles, up to maxDelayMs. Default 200. */
  initialDelayMs?: number;
  /** Default 5000. */
  maxDelayMs?: number;
}

export interface BridgeClientOptions {
  /** The daemon's address, "host:port". */
  target: string;
  mtls: MtlsOptions;
  /** The tokens: signed here with a key (`JwtOptions`), or from a function of yours. */
  jwt: JwtOptions | JwtFunctionOptions;
  retry?: RetryOptions;
  /** HTTP/2 keepalive pings on open calls. Default every 30 s, dead after 10 s without an answer. */
  keepalive?: { timeMs?: number; timeoutMs?: number };
  timeouts?: {
    /** Deadline of a call (all its retries included) when the call sets none. Default 30 s. */
    callMs?: number;
    /**
     * How long one connection attempt (TCP, the TLS handshake and HTTP/2's
     * settings exchange) may take before the client drops that channel and
     * opens a new one; calls waiting for it fail over to the new one.
     * Default 10 s (doubled after each attempt in a row that ran out, up to
     * 40 s, for a host too busy to finish a handshake sooner).
     */
    connectMs?: number;
    /**
     * How long an event stream keeps reconnecting while every attempt
     * fails, before it gives up with the last error. Default 60 s.
     */
    reconnectMs?: number;
  };
  /** Where event streams keep subscribers' cursors. Default: in memory. */
  cursorStore?: CursorStore;
}

/** Per-call options. */
export interface CallOptions {
  /** This call's deadline, retries included. Default: `timeouts.callMs`. */
  timeoutMs?: number;
  /** Aborting cancels the call; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Parses "250ms", "30s", "5m", "1h", or takes milliseconds as they are. */
export function parseDuration(v: number | string, what: string): number {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v <= 0) throw new TypeError(`${what} must be a positive duration`);
    return v;
  }
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(v.trim());
  if (!m) throw new TypeError(`${what}: bad duration ${JSON.stringify(v)} (e.g. "30s", "5m")`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

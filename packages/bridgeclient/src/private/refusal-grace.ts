import { TlsRefusalError } from '../errors.js';

/**
 * How long an event stream keeps reconnecting through connections the
 * daemon closed right after the TLS handshake, before it takes them for
 * the refusal of its certificate that they most likely are.
 */
const GRACE_MS = 10_000;

/**
 * The daemon refuses a client certificate by closing the connection right
 * after the handshake, without an alert; a network that cuts a connection
 * at that very moment looks the same to the client. Every other refusal
 * (an alert, this client's own checks of the daemon's certificate) is
 * certain. A call fails at once on any refusal; an event stream, made to
 * ride out network trouble, gives the one a network can imitate a short
 * grace, so a flaky network does not end it and a revoked certificate
 * does not keep it trying for its whole reconnect budget.
 */
export class RefusalGrace {
  /** When the refusals in a row without another outcome began. */
  private since: number | undefined;

  constructor(private readonly limitMs: number) {}

  /** Whether the stream must end with `failed`: a refusal that is certain, or has lasted too long. */
  endsWith(failed: unknown, now = Date.now()): boolean {
    if (!(failed instanceof TlsRefusalError)) {
      this.since = undefined;
      return false;
    }
    if (failed.reason !== 'client_certificate' || failed.tlsCode !== '') return true;
    this.since ??= now;
    return now - this.since >= Math.min(GRACE_MS, this.limitMs);
  }

  /** A connection that worked: refusals start over. */
  reset(): void {
    this.since = undefined;
  }
}

/**
 * TLS refusals as the connector reports them to grpc-js, and as
 * fromServiceError reads them back. grpc-js turns every failed connection
 * into UNAVAILABLE with the failure's text, so the connector marks its text
 * (`… [tls-refusal REASON CODE]`) and errors.ts looks for the mark.
 */

/**
 * Why TLS stopped the connection:
 * - `client_certificate`: the daemon refused this client's certificate
 *   (a TLS alert such as certificate_revoked, or the connection closed
 *   right after the handshake, before a byte of HTTP/2: how the daemon
 *   refuses one);
 * - `server_certificate`: the daemon's certificate did not verify against
 *   the client's CA bundle (untrusted, expired, …);
 * - `server_name`: the daemon's certificate does not carry the name (or IP
 *   address) the client expects;
 * - `handshake`: the daemon refused the handshake with another alert
 *   (e.g. protocol_version).
 */
export type TlsRefusalReason =
  | 'client_certificate'
  | 'server_certificate'
  | 'server_name'
  | 'handshake';

export interface TlsRefusal {
  reason: TlsRefusalReason;
  /**
   * The TLS alert (`certificate_revoked`) or certificate check
   * (`SELF_SIGNED_CERT_IN_CHAIN`, `ERR_TLS_CERT_ALTNAME_INVALID`) that
   * failed; empty when the daemon closed the connection without one.
   */
  code: string;
}

/** Alerts a server sends about the client's certificate (RFC 8446 6.2). */
const CLIENT_CERTIFICATE_ALERTS = new Set([
  'bad_certificate',
  'unsupported_certificate',
  'certificate_revoked',
  'certificate_expired',
  'certificate_unknown',
  'unknown_ca',
  'certificate_required',
  'access_denied',
]);

/** OpenSSL's certificate verification codes, as Node names them. */
const VERIFY_CODE =
  /^(?:UNABLE_TO_|CERT_|CRL_|DEPTH_ZERO_|SELF_SIGNED_|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_|ERROR_IN_C|HOSTNAME_MISMATCH)/;

/** Node's code of a received alert, e.g. ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED. */
const ALERT_CODE = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_([A-Z_]+)$/;

/** `${error}` of an Error, as grpc-js writes it: "Error: …", "Error [CODE]: …". */
export const ERROR_PREFIX = /^(?:[A-Za-z]*Error(?: \[\w+\])?: )+/;

const MARK = /^([\s\S]*?) \[tls-refusal (\w+) (\S+)\]/;

/** The text of a refusal for grpc-js: the sentence for people, then the mark. */
export function markRefusal(refusal: TlsRefusal, sentence: string): string {
  return `${sentence} [tls-refusal ${refusal.reason} ${refusal.code || '-'}]`;
}

/** True for a text `markRefusal` wrote. */
export const isMarked = (text: string): boolean => MARK.test(text.replace(ERROR_PREFIX, ''));

/** The refusal marked in `text` (grpc-js's "Last error"), and its sentence. */
export function readRefusal(text: string): { refusal: TlsRefusal; sentence: string } | undefined {
  const m = MARK.exec(text.replace(ERROR_PREFIX, ''));
  if (!m) return undefined;
  const [, sentence = '', reason, code = '-'] = m;
  return {
    refusal: { reason: reason as TlsRefusalReason, code: code === '-' ? '' : code },
    sentence,
  };
}

/** The alert a TLS error reports receiving, e.g. "certificate_revoked". */
export function alertOf(err: { code?: string }): string | undefined {
  return ALERT_CODE.exec(err.code ?? '')?.[1]?.toLowerCase();
}

/** A refusal an alert means: the client's certificate, or the handshake as a whole. */
export function alertRefusal(alert: string): { refusal: TlsRefusal; sentence: string } {
  return CLIENT_CERTIFICATE_ALERTS.has(alert)
    ? {
        refusal: { reason: 'client_certificate', code: alert },
        sentence: `the daemon refused this client's certificate: TLS alert ${alert}`,
      }
    : {
        refusal: { reason: 'handshake', code: alert },
        sentence: `the daemon refused the TLS handshake: TLS alert ${alert}`,
      };
}

/** True for a code of OpenSSL's checks of the daemon's certificate chain. */
export const isVerifyCode = (code: string | undefined): boolean => VERIFY_CODE.test(code ?? '');

import type { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate } from 'node:tls';
import { leadsToBundle } from '@agent-bridge/pki';
import { chainOf } from './private/peer-chain.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/**
 * Our rules for a client leaf beyond what OpenSSL checks. OpenSSL (with
 * Node's server purpose check) already refuses a leaf whose extended key
 * usage lists other purposes but not clientAuth (INVALID_PURPOSE, e.g. a
 * serverAuth-only certificate), but it accepts a leaf with no extended key
 * usage at all, or with anyExtendedKeyUsage, and a leaf that is itself a CA.
 * We require clientAuth to be named, and a leaf that is not a CA: a CA
 * certificate presented as a client could mint further identities.
 */
export function leafPolicyRefusal(leaf: X509Certificate): string | undefined {
  if (leaf.ca) return 'client_cert_is_ca';
  if (!(leaf.keyUsage ?? []).includes(CLIENT_AUTH)) return 'client_cert_not_for_client_auth';
  return undefined;
}

/** Node's verdict on a presented chain (`authorizationError`), as a stable reason code. */
function verifyErrorReason(code: string | null | undefined, hasCert: boolean): string {
  if (!hasCert) return 'no_client_certificate';
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return 'cert_expired';
    case 'CERT_NOT_YET_VALID':
      return 'cert_not_yet_valid';
    case 'CERT_REVOKED':
      return 'cert_revoked';
    case 'INVALID_PURPOSE':
      return 'client_cert_not_for_client_auth';
    case 'UNABLE_TO_GET_CRL':
    case 'CRL_HAS_EXPIRED':
    case 'CRL_NOT_YET_VALID':
    case 'CRL_SIGNATURE_FAILURE':
      return 'crl_unusable';
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'CERT_SIGNATURE_FAILURE':
    case 'CERT_UNTRUSTED':
    case 'INVALID_CA':
      return 'untrusted_issuer';
    default:
      return 'tls_error';
  }
}

/**
 * The reason for a chain Node did not verify. With CRL checks on, OpenSSL
 * reports the last of its errors, which for a certificate of a CA that is
 * not in the bundle (a retired one) is the CRL it cannot find for that CA,
 * not the missing issuer: a chain that leads to no CA of the bundle is
 * `untrusted_issuer` whatever OpenSSL said last.
 */
export function unverifiedReason(
  code: string | null | undefined,
  peer: DetailedPeerCertificate | undefined,
  bundle: readonly X509Certificate[],
): string {
  const reason = verifyErrorReason(code, Boolean(peer?.raw));
  if (reason !== 'crl_unusable') return reason;
  const [leaf, ...sent] = chainOf(peer);
  return leaf && !leadsToBundle(leaf, sent, bundle) ? 'untrusted_issuer' : reason;
}

/** A handshake that failed inside OpenSSL or Node (`tlsClientError`), as a stable reason code. */
export function handshakeErrorReason(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'ERR_SSL_UNSUPPORTED_PROTOCOL':
    case 'ERR_SSL_NO_PROTOCOLS_AVAILABLE':
    case 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION':
      return 'unsupported_protocol';
    case 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE':
      return 'no_client_certificate';
    case 'ERR_SSL_NO_APPLICATION_PROTOCOL':
      return 'no_alpn_h2';
    case 'ERR_TLS_HANDSHAKE_TIMEOUT':
      return 'handshake_timeout';
    case 'ERR_SSL_HTTP_REQUEST':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'ERR_SSL_PACKET_LENGTH_TOO_LONG':
    case 'ERR_SSL_RECORD_LAYER_FAILURE':
      return 'not_tls';
    case 'ECONNRESET':
      return 'handshake_aborted';
    default:
      return /ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|DECRYPT_ERROR)$/.test(
        err.code ?? '',
      )
        ? 'server_cert_rejected'
        : 'tls_error';
  }
}

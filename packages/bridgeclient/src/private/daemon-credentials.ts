import { isIP, type Socket } from 'node:net';
import {
  checkServerIdentity,
  type PeerCertificate,
  type SecureContext,
  connect as tlsConnect,
} from 'node:tls';
import { CallCredentials, ChannelCredentials } from '@grpc/grpc-js';
import { alertOf, alertRefusal, isMarked, isVerifyCode, markRefusal } from './tls-refusal.js';

type SecureConnector = ReturnType<ChannelCredentials['_createSecureConnector']>;

/**
 * The channel credentials of a daemon: TLS 1.3 with this client's
 * certificate, as grpc-js's own would do it, but for two things it cannot.
 *
 * - The name checked is the daemon's DNS name or IP address, and only a
 *   DNS name goes out as the TLS server name (SNI). grpc-js sends an IP
 *   address there too, which RFC 6066 forbids and Node answers with a
 *   DEP0123 warning; here the certificate is still checked against the
 *   address (its IP SANs).
 * - A connection TLS stopped is told apart from one the network lost:
 *   grpc-js reports both as UNAVAILABLE with text. A handshake that failed
 *   on a certificate or an alert, and a connection the daemon closed right
 *   after the handshake before a byte of HTTP/2 (how the daemon refuses a
 *   client certificate: it decides after the handshake), fail with a text
 *   marked for fromServiceError (tls-refusal.ts).
 */
export class DaemonCredentials extends ChannelCredentials {
  constructor(
    private readonly secureContext: SecureContext,
    /** The name or IP address the daemon's certificate must carry. */
    private readonly serverName: string,
  ) {
    super();
  }

  _isSecure(): boolean {
    return true;
  }

  _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(
    _target: unknown,
    _options: unknown,
    callCredentials?: CallCredentials,
  ): SecureConnector {
    const perCall = callCredentials ?? CallCredentials.createEmpty();
    return {
      connect: (socket: Socket) => this.connect(socket),
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => perCall,
      destroy: () => {},
    };
  }

  private connect(socket: Socket): Promise<{ socket: Socket; secure: boolean }> {
    const name = this.serverName;
    return new Promise((resolve, reject) => {
      const tls = tlsConnect({
        socket,
        secureContext: this.secureContext,
        ALPNProtocols: ['h2'],
        ...(isIP(name) ? {} : { servername: name }),
        // Node passes the SNI name (or "localhost" without one): check the real one.
        checkServerIdentity: (_host: string, cert: PeerCertificate) => {
          const wrong = checkServerIdentity(name, cert);
          if (wrong) {
            wrong.message = markRefusal(
              { reason: 'server_name', code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
              `the daemon's certificate does not carry the ${isIP(name) ? 'address' : 'name'} ${name}: it carries ${cert.subjectaltname || `only the subject ${cert.subject?.CN ?? '(none)'}`}`,
            );
          }
          return wrong;
        },
      });
      let secured = false;
      tls.on('error', (err: Error & { code?: string }) => {
        if (!secured) {
          reject(handshakeFailure(err));
          return;
        }
        // The listeners grpc-js adds after this one read the same error:
        // mark it while it is still about the handshake.
        if (tls.bytesRead === 0 && !isMarked(err.message)) {
          err.message = refusedAfterHandshake(err);
        }
      });
      tls.once('close', () => {
        if (!secured) reject(new Error('the connection closed during the TLS handshake'));
      });
      tls.once('end', () => {
        if (secured && tls.bytesRead === 0) tls.destroy(new Error(refusedAfterHandshake()));
      });
      tls.once('secureConnect', () => {
        secured = true;
        resolve({ socket: tls, secure: true });
      });
    });
  }
}

/** A failed handshake: marked when TLS explains it, as it came otherwise (a network failure). */
function handshakeFailure(err: Error & { code?: string }): Error {
  if (isMarked(err.message)) return err;
  const alert = alertOf(err);
  if (alert) {
    const { refusal, sentence } = alertRefusal(alert);
    err.message = markRefusal(refusal, sentence);
  } else if (isVerifyCode(err.code)) {
    err.message = markRefusal(
      { reason: 'server_certificate', code: err.code ?? '' },
      `the daemon's certificate is not trusted: ${err.message} (${err.code})`,
    );
  }
  return err;
}

/**
 * The text of a connection that ended after the handshake, before any
 * HTTP/2 byte: an alert, or a reset or close (whichever, the same refusal).
 */
function refusedAfterHandshake(err?: Error & { code?: string }): string {
  const alert = err && alertOf(err);
  if (alert) {
    const { refusal, sentence } = alertRefusal(alert);
    return markRefusal(refusal, sentence);
  }
  return markRefusal(
    { reason: 'client_certificate', code: '' },
    "the daemon refused this client's certificate: it closed the connection right after the TLS handshake",
  );
}

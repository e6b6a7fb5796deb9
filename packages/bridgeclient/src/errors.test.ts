import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import {
  BridgeError,
  fromServiceError,
  NotFoundError,
  ResourceExhaustedError,
  TlsRefusalError,
  UnavailableError,
} from './errors.js';
import { toBridgeError } from './private/stream-failure.js';
import { markRefusal } from './private/tls-refusal.js';

const serviceError = (code: status, details: string): ServiceError =>
  Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata: new Metadata(),
  });

/** What grpc-js says when a channel has no connection, around its last error. */
const noConnection = (last: string) =>
  serviceError(
    status.UNAVAILABLE,
    `No connection established. Last error: ${last}. Resolution note: `,
  );

describe('fromServiceError', () => {
  it("cleans grpc-js's text of a failed connection: no time stamp, no empty resolution note", () => {
    const refused = fromServiceError(
      noConnection('Error: connect ECONNREFUSED 127.0.0.1:1'),
      'Health',
    );
    expect(refused).toBeInstanceOf(UnavailableError);
    expect(refused.details).toBe('no connection to the daemon: connect ECONNREFUSED 127.0.0.1:1');
    expect(refused.message).toBe(
      'Health: no connection to the daemon: connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(refused).not.toBeInstanceOf(TlsRefusalError);
    const reset = fromServiceError(noConnection('read ECONNRESET (2026-11-28T02:00:23.393Z)'), 'X');
    expect(reset.details).toBe('no connection to the daemon: read ECONNRESET');
    const noted = fromServiceError(
      serviceError(
        status.UNAVAILABLE,
        'No connection established. Last error: null. Resolution note: DNS resolution failed for nope:1',
      ),
      'X',
    );
    expect(noted.details).toBe('no connection to the daemon; DNS resolution failed for nope:1');
    // Any other text is the daemon's, kept as it is.
    expect(fromServiceError(serviceError(status.UNAVAILABLE, 'shutting down'), 'X').details).toBe(
      'shutting down',
    );
    expect(fromServiceError(serviceError(status.NOT_FOUND, 'no session'), 'X')).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('reads a TLS refusal out of the text, as a TlsRefusalError, with a sentence for people', () => {
    const closed = markRefusal(
      { reason: 'client_certificate', code: '' },
      "the daemon refused this client's certificate: it closed the connection right after the TLS handshake",
    );
    for (const last of [`${closed} (2026-11-28T02:00:23.393Z)`, `Error: ${closed}`]) {
      const e = fromServiceError(noConnection(last), 'Health') as TlsRefusalError;
      expect(e).toBeInstanceOf(TlsRefusalError);
      expect(e).toBeInstanceOf(UnavailableError);
      expect(e).toMatchObject({ code: 'UNAVAILABLE', reason: 'client_certificate', tlsCode: '' });
      expect(e.details).toBe(
        "the daemon refused this client's certificate: it closed the connection right after the TLS handshake",
      );
    }
    const name = markRefusal(
      { reason: 'server_name', code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
      "the daemon's certificate does not carry the name x: it carries DNS:localhost",
    );
    const e = fromServiceError(
      noConnection(`Error [ERR_TLS_CERT_ALTNAME_INVALID]: ${name}`),
      'Health',
    ) as TlsRefusalError;
    expect(e).toMatchObject({ reason: 'server_name', tlsCode: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(e.details).toBe(
      "the daemon's certificate does not carry the name x: it carries DNS:localhost",
    );
  });

  it('keeps the ServiceError as cause, given to the constructor, with the message as before', () => {
    const withPushback = serviceError(status.RESOURCE_EXHAUSTED, 'rate limited');
    withPushback.metadata.set('grpc-retry-pushback-ms', '250');
    const closed = markRefusal(
      { reason: 'client_certificate', code: '' },
      "the daemon refused this client's certificate",
    );
    const cases: [ServiceError, new (...args: never[]) => BridgeError, string][] = [
      [serviceError(status.NOT_FOUND, 'no session x'), NotFoundError, 'GetSession: no session x'],
      [withPushback, ResourceExhaustedError, 'GetSession: rate limited'],
      [
        noConnection('Error: connect ECONNREFUSED 127.0.0.1:1'),
        UnavailableError,
        'GetSession: no connection to the daemon: connect ECONNREFUSED 127.0.0.1:1',
      ],
      [
        noConnection(closed),
        TlsRefusalError,
        "GetSession: the daemon refused this client's certificate",
      ],
      [serviceError(status.INTERNAL, 'boom'), BridgeError, 'GetSession: boom'],
    ];
    for (const [grpc, Class, message] of cases) {
      const e = fromServiceError(grpc, 'GetSession', { sessionId: 's' });
      expect(e.constructor).toBe(Class);
      expect(e.message).toBe(message);
      expect(e.cause).toBe(grpc);
      // Error's own option: not enumerable, unlike a property assigned afterwards.
      expect(Object.getOwnPropertyDescriptor(e, 'cause')).toMatchObject({ enumerable: false });
      expect(e).toMatchObject({ method: 'GetSession', sessionId: 's' });
    }
    expect(fromServiceError(withPushback, 'X').retryAfterMs).toBe(250);
  });

  it("an event stream's failures keep theirs too", () => {
    const grpc = serviceError(status.UNAVAILABLE, 'shutting down');
    const mapped = toBridgeError(grpc, 'StreamEventBatches');
    expect(mapped).toBeInstanceOf(UnavailableError);
    expect(mapped.cause).toBe(grpc);
    const shutDown = new Error('Channel has been shut down');
    const closed = toBridgeError(shutDown, 'StreamEvents');
    expect(closed).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'StreamEvents: Channel has been shut down',
    });
    expect(closed.cause).toBe(shutDown);
  });
});

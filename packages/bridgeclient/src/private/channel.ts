import { createHash, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { BridgeServiceClient } from '@agent-bridge/proto';
import { type ChannelOptions, credentials, Metadata } from '@grpc/grpc-js';
import { type BridgeClientOptions, parseDuration } from '../options.js';
import { readPem } from './pem.js';
import { TokenSource } from './token-source.js';

/** Events can be large (a long agent message); the daemon's batches stay well below this. */
const MAX_RECEIVE_BYTES = 64 * 1024 * 1024;

/**
 * The grpc-js client of one daemon: TLS 1.3 with this client's certificate
 * (there is no way to leave either out), and a fresh-enough token on every
 * call through call credentials.
 */
export function openChannel(o: BridgeClientOptions): {
  raw: BridgeServiceClient;
  tokens: TokenSource;
} {
  const port = /^(?:\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(o.target ?? '')?.[1];
  if (port === undefined || Number(port) < 1 || Number(port) > 65535) {
    throw new TypeError(
      `target must be "host:port" with a port of 1-65535, got ${JSON.stringify(o.target)}`,
    );
  }
  if (!o.mtls) throw new TypeError('mtls is required: the daemon only speaks mutual TLS');
  if (!o.jwt) throw new TypeError('jwt is required: every call carries a token');
  const certPem = readPem(o.mtls.cert, 'mtls.cert');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certPem);
  } catch {
    throw new TypeError('mtls.cert: not a readable certificate');
  }
  const ca = readPem(o.mtls.ca, 'mtls.ca');
  const key = readPem(o.mtls.key, 'mtls.key');
  let tls: ReturnType<typeof createSecureContext>;
  try {
    tls = createSecureContext({
      minVersion: 'TLSv1.3',
      maxVersion: 'TLSv1.3',
      ca,
      cert: certPem,
      key,
    });
  } catch (err) {
    // e.g. a key that does not belong to the certificate
    throw new TypeError(`mtls: ${(err as Error).message}`);
  }
  for (const [name, value] of Object.entries({
    issuer: o.jwt.issuer,
    subject: o.jwt.subject,
    projectId: o.jwt.projectId,
  })) {
    if (typeof value !== 'string' || value === '') throw new TypeError(`jwt.${name} is required`);
  }
  const tokens = new TokenSource(readPem(o.jwt.privateKey, 'jwt.privateKey'), {
    issuer: o.jwt.issuer,
    subject: o.jwt.subject,
    projectId: o.jwt.projectId,
    audience: o.jwt.audience ?? 'bridge',
    ttlMs: parseDuration(o.jwt.ttl ?? '5m', 'jwt.ttl'),
    certThumbprint:
      o.jwt.bindToCert === false
        ? undefined
        : createHash('sha256').update(leaf.raw).digest('base64url'),
    keyId: o.jwt.keyId,
  });
  const bearer = credentials.createFromMetadataGenerator((_params, done) => {
    tokens.token().then(
      (token) => {
        const md = new Metadata();
        md.set('authorization', `Bearer ${token}`);
        done(null, md);
      },
      (err: Error) => done(err),
    );
  });
  const channel: ChannelOptions = {
    'grpc.keepalive_time_ms': o.keepalive?.timeMs ?? 30_000,
    'grpc.keepalive_timeout_ms': o.keepalive?.timeoutMs ?? 10_000,
    'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
    // Reconnect promptly after a daemon restart (grpc-js waits 1 s, growing to 2 min, by default).
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 5000,
    ...(o.mtls.serverName
      ? {
          'grpc.ssl_target_name_override': o.mtls.serverName,
          'grpc.default_authority': o.mtls.serverName,
        }
      : {}),
  };
  const raw = new BridgeServiceClient(
    o.target,
    credentials.combineChannelCredentials(credentials.createFromSecureContext(tls), bearer),
    channel,
  );
  return { raw, tokens };
}

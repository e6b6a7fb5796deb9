import { createHash, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { BridgeServiceClient } from '@agent-bridge/proto';
import { type ChannelOptions, credentials, Metadata } from '@grpc/grpc-js';
import { type BridgeClientOptions, parseDuration } from '../options.js';
import { DaemonChannel } from './daemon-channel.js';
import { DaemonCredentials } from './daemon-credentials.js';
import { readPem } from './pem.js';
import type { Tokens } from './token-cache.js';
import { TokenHook } from './token-hook.js';
import { TokenSource } from './token-source.js';

/** Events can be large (a long agent message); the daemon's batches stay well below this. */
const MAX_RECEIVE_BYTES = 64 * 1024 * 1024;

const DEFAULT_CONNECT_MS = 10_000;

/**
 * The grpc-js channel of one daemon: TLS 1.3 with this client's certificate
 * (there is no way to leave either out), a fresh-enough token on every call
 * through call credentials, and connection attempts bounded by
 * `timeouts.connectMs` (see DaemonChannel).
 */
export function openChannel(o: BridgeClientOptions): {
  channel: DaemonChannel;
  tokens: Tokens;
} {
  const port = /^(?:\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(o.target ?? '')?.[1];
  if (port === undefined || Number(port) < 1 || Number(port) > 65535) {
    throw new TypeError(
      `target must be "host:port" with a port of 1-65535, got ${JSON.stringify(o.target)}`,
    );
  }
  if (!o.mtls) throw new TypeError('mtls is required: the daemon only speaks mutual TLS');
  if (!o.jwt) throw new TypeError('jwt is required: every call carries a token');
  const connectMs = o.timeouts?.connectMs ?? DEFAULT_CONNECT_MS;
  if (!(Number.isFinite(connectMs) && connectMs > 0)) {
    throw new TypeError('timeouts.connectMs must be a positive number of milliseconds');
  }
  const certPem = readPem(o.mtls.cert, 'mtls.cert');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certPem);
  } catch (err) {
    throw new TypeError('mtls.cert: not a readable certificate', { cause: err });
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
    throw new TypeError(`mtls: ${(err as Error).message}`, { cause: err });
  }
  const tokens = tokensOf(o.jwt, leaf);
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
    // A channel replaced for a stuck connection must not inherit that
    // connection from grpc-js's process-wide pool.
    'grpc.use_local_subchannel_pool': 1,
    ...(o.mtls.serverName ? { 'grpc.default_authority': o.mtls.serverName } : {}),
  };
  const combined = credentials.combineChannelCredentials(
    new DaemonCredentials(tls, o.mtls.serverName || hostOf(o.target)),
    bearer,
  );
  return {
    channel: new DaemonChannel(
      () => new BridgeServiceClient(o.target, combined, channel),
      connectMs,
    ),
    tokens,
  };
}

/** The host of "host:port" or "[v6 address]:port". */
const hostOf = (target: string): string =>
  target.slice(0, target.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');

/** The client's tokens: signed here with its key, or from the caller's function. */
function tokensOf(jwt: BridgeClientOptions['jwt'], leaf: X509Certificate): Tokens {
  if ('token' in jwt) {
    if (typeof jwt.token !== 'function') throw new TypeError('jwt.token must be a function');
    if (typeof jwt.projectId !== 'string' || jwt.projectId === '') {
      throw new TypeError('jwt.projectId is required');
    }
    return new TokenHook(jwt.token);
  }
  for (const [name, value] of Object.entries({
    issuer: jwt.issuer,
    subject: jwt.subject,
    projectId: jwt.projectId,
  })) {
    if (typeof value !== 'string' || value === '') throw new TypeError(`jwt.${name} is required`);
  }
  return new TokenSource(readPem(jwt.privateKey, 'jwt.privateKey'), {
    issuer: jwt.issuer,
    subject: jwt.subject,
    projectId: jwt.projectId,
    audience: jwt.audience ?? 'bridge',
    ttlMs: parseDuration(jwt.ttl ?? '5m', 'jwt.ttl'),
    certThumbprint:
      jwt.bindToCert === false
        ? undefined
        : createHash('sha256').update(leaf.raw).digest('base64url'),
    keyId: jwt.keyId,
  });
}

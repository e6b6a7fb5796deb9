import { createSecureContext } from 'node:tls';
import { BridgeServiceClient, type SessionEvent } from '@agent-bridge/proto';
import { type ClientReadableStream, credentials, type ServiceError } from '@grpc/grpc-js';
import type { BenchBridge } from './bench-bridge.js';

/**
 * `n` clients of the daemon on separate connections: grpc-js shares one
 * between clients with the same target and options unless each has its
 * own subchannel pool.
 */
export function streamClients(bridge: BenchBridge, n: number): BridgeServiceClient[] {
  return Array.from(
    { length: n },
    () =>
      new BridgeServiceClient(
        `127.0.0.1:${bridge.daemon.port}`,
        credentials.createFromSecureContext(
          createSecureContext({
            minVersion: 'TLSv1.3',
            ca: bridge.pki.ca.certPem,
            cert: bridge.pki.client.certPem,
            key: bridge.pki.client.keyPem,
          }),
        ),
        { 'grpc.ssl_target_name_override': 'localhost', 'grpc.use_local_subchannel_pool': 1 },
      ),
  );
}

/** A stream of the session's events, once its first event has arrived (attached). */
export function attach(
  client: BridgeServiceClient,
  sessionId: string,
  md: Parameters<BridgeServiceClient['streamEvents']>[1],
): Promise<ClientReadableStream<SessionEvent>> {
  const stream = client.streamEvents({ sessionId, afterSeq: 0n, subscriberId: '' }, md);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.cancel();
      reject(new Error(`a stream of ${sessionId}: no first event within 60 s`));
    }, 60_000);
    stream.once('data', () => {
      clearTimeout(timer);
      resolve(stream);
    });
    stream.on('error', (err: ServiceError) => {
      clearTimeout(timer);
      // CANCELLED is ours (cancel); anything else fails the run.
      if (err.code !== 1) reject(err);
    });
  });
}

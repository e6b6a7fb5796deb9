import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import type { JwtVerifier } from '@agent-bridge/auth';
import { type Audit, type SessionManager, systemClock } from '@agent-bridge/bridge';
import type { BridgeConfig } from '@agent-bridge/config';
import { BridgeServiceService, bridgeServiceName } from '@agent-bridge/proto';
import { Server } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import { createBridgeService } from './bridge-service.js';
import { createCallLimits } from './private/call-limits.js';
import { addReflection } from './reflection.js';
import { StrictServerCredentials } from './strict-credentials.js';

export interface BridgeServerOptions {
  config: BridgeConfig;
  manager: SessionManager;
  verifier: JwtVerifier;
  logger: Logger;
  /** Where call, TLS and connection audit records go. */
  audit: Audit;
  version: string;
}

export interface BridgeServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  readonly instanceId: string;
  /** Re-reads the TLS files (CA bundle, certificate, key, CRLs) for new handshakes. */
  reloadTls(): void;
  /** Marks the daemon not serving, drains calls for up to `graceMs`, then closes. */
  shutdown(graceMs: number): Promise<void>;
}

/** Reads the TLS material; throws a clear error naming the missing file. */
export function readTlsFiles(tls: BridgeConfig['tls']): SecureContextOptions {
  const read = (what: string, path: string) => {
    if (!path)
      throw new Error(`tls.${what} is not configured: the daemon never serves without TLS`);
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`tls.${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code})`);
    }
  };
  return {
    ca: read('ca_bundle', tls.caBundle),
    cert: read('cert', tls.cert),
    key: read('key', tls.key),
    ...(tls.crl.length > 0 ? { crl: tls.crl.map((f) => read('crl', f)) } : {}),
  };
}

/** Starts the gRPC server: TLS 1.3 mutual TLS only, BridgeService, health and reflection. */
export async function startBridgeServer(opts: BridgeServerOptions): Promise<BridgeServer> {
  const { config, logger } = opts;
  const creds = new StrictServerCredentials(readTlsFiles(config.tls));
  const ageMs = config.server.maxConnectionAgeMs;
  const server = new Server({
    ...(ageMs > 0
      ? {
          'grpc.max_connection_age_ms': ageMs,
          // Long event streams survive the age limit; new calls re-handshake.
          'grpc.max_connection_age_grace_ms': 24 * 3600 * 1000,
        }
      : {}),
    'grpc.keepalive_time_ms': 60_000,
    'grpc.keepalive_timeout_ms': 20_000,
    'grpc.max_concurrent_streams': 1000,
  });
  const instanceId = randomUUID();
  server.addService(
    BridgeServiceService,
    createBridgeService({
      manager: opts.manager,
      verifier: opts.verifier,
      logger,
      audit: opts.audit,
      limits: createCallLimits(config.rateLimits, systemClock),
      version: opts.version,
      instanceId,
      startedAt: new Date(),
    }),
  );
  const health = new HealthImplementation({ '': 'SERVING', [bridgeServiceName]: 'SERVING' });
  health.addToServer(server);
  addReflection(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(config.server.listen, creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  logger.info(
    { listen: config.server.listen, port, instanceId },
    'bridge listening (TLS 1.3, mutual TLS)',
  );

  return {
    port,
    instanceId,
    reloadTls: () => {
      creds.reload(readTlsFiles(config.tls));
      logger.info('TLS material reloaded');
    },
    shutdown: async (graceMs) => {
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(bridgeServiceName, 'NOT_SERVING');
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

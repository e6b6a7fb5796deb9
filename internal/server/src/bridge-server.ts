import { randomUUID } from 'node:crypto';
import type { JwtVerifier } from '@agent-bridge/auth';
import {
  type Audit,
  type LostSessions,
  type SessionManager,
  systemClock,
} from '@agent-bridge/bridge';
import type { BridgeConfig } from '@agent-bridge/config';
import { bridgeServiceName } from '@agent-bridge/proto';
import { ScopeEnded, scope } from '@agent-bridge/scope';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import { createBridgeService } from './bridge-service.js';
import { bytesStreamingService } from './event-wire.js';
import {
  type MetricsListener,
  type MetricsSource,
  startMetricsListener,
} from './metrics-listener.js';
import { createCallLimits } from './private/call-limits.js';
import { ConnectionIdentities } from './private/connection-identities.js';
import { addReflection } from './reflection.js';
import { revocationListsResponse } from './revocation-lists.js';
import type { CallObserver } from './service-context.js';
import { watchTlsFiles } from './tls-file-watch.js';
import { startTlsListener, type TlsListener } from './tls-listener.js';
import { loadTlsMaterial } from './tls-material.js';

/** Quiet time after the last change to a TLS file before reloading: editors write in steps. */
const TLS_WATCH_DEBOUNCE_MS = 300;
/**
 * Node's own default (10) is sized for web pages; an event stream carries up
 * to `event_buffer_bytes` of replay, so leave room above that.
 */
const MAX_SESSION_MEMORY_MB = 64;

export interface BridgeServerOptions {
  config: BridgeConfig;
  manager: SessionManager;
  verifier: JwtVerifier;
  logger: Logger;
  /** Where call, TLS and connection audit records go. */
  audit: Audit;
  version: string;
  /**
   * Served at /metrics on `metrics.listen` (mutual TLS, the same TLS files);
   * without it, or with `metrics.listen` empty, there is no metrics listener.
   */
  metrics?: MetricsSource;
  /** Told of every finished BridgeService call (metrics). */
  observeCall?: CallObserver;
  /** The fleet's sessions whose daemon is gone, served read-only (issue 26); none outside a fleet. */
  lost?: LostSessions;
}

export interface BridgeServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** The metrics listener's bound port, when there is one. */
  readonly metricsPort: number | undefined;
  readonly instanceId: string;
  /**
   * Re-reads the TLS files (CA bundle, certificate, key, CRLs) as one set
   * for new handshakes and closes open connections the new CRLs revoke or
   * the new bundle no longer trusts. A set that fails its checks is refused
   * (the promise rejects) and the previous material stays.
   */
  reloadTls(): Promise<void>;
  /**
   * Reports NOT_SERVING on grpc.health.v1 (Check, Watch, List) while the
   * server still answers: the first step of a shutdown, so load balancers and
   * probes look elsewhere while sessions are being stopped.
   */
  markNotServing(): void;
  /** Marks the daemon not serving, drains calls for up to `graceMs`, then closes. */
  shutdown(graceMs: number): Promise<void>;
}

/** How long streams ended at the end of a shutdown's grace get to send their status before the cut. */
const LAST_STATUS_MS = 500;

/** Starts the gRPC server: TLS 1.3 mutual TLS only, BridgeService, health and reflection. */
export async function startBridgeServer(opts: BridgeServerOptions): Promise<BridgeServer> {
  // The server's scope: every call's lives inside it (see ServiceContext.lifetime).
  const serving = scope();
  const { config, logger } = opts;
  // Unused CRLs at start are reported by the start-up checks (cmd/bridge).
  const material = await loadTlsMaterial(config.tls);
  const ageMs = config.server.maxConnectionAgeMs;
  const idleMs = config.server.maxConnectionIdleMs;
  const server = new Server({
    ...(ageMs > 0
      ? {
          'grpc.max_connection_age_ms': ageMs,
          // Long event streams survive the age limit; new calls re-handshake.
          'grpc.max_connection_age_grace_ms': 24 * 3600 * 1000,
        }
      : {}),
    ...(idleMs > 0 ? { 'grpc.max_connection_idle_ms': idleMs } : {}),
    'grpc.keepalive_time_ms': 60_000,
    'grpc.keepalive_timeout_ms': 20_000,
    'grpc.max_concurrent_streams': config.server.maxConcurrentStreams,
    // grpc-js lifts Node's per-session memory cap unless told otherwise; with
    // it, one connection that makes the daemon buffer without bound (headers,
    // unread frames) gets its new streams refused instead.
    'grpc-node.max_session_memory': MAX_SESSION_MEMORY_MB,
  });
  // New at every start; the history (manager.historyId) is the store's and may outlive it.
  const instanceId = randomUUID();
  const connections = new ConnectionIdentities();
  let listener: TlsListener | undefined;
  server.addService(
    bytesStreamingService,
    createBridgeService({
      lifetime: serving.signal,
      manager: opts.manager,
      verifier: opts.verifier,
      logger,
      audit: opts.audit,
      limits: createCallLimits(config.rateLimits, systemClock),
      version: opts.version,
      instanceId,
      startedAt: new Date(),
      revocationLists: () => revocationListsResponse(listener?.material().revocationLists ?? []),
      connections,
      ...(opts.observeCall ? { observeCall: opts.observeCall } : {}),
      ...(opts.lost ? { lost: opts.lost } : {}),
    }),
  );
  const health = new HealthImplementation({ '': 'SERVING', [bridgeServiceName]: 'SERVING' });
  health.addToServer(server);
  const markNotServing = () => {
    health.setStatus('', 'NOT_SERVING');
    health.setStatus(bridgeServiceName, 'NOT_SERVING');
  };
  addReflection(server);

  // The sockets arrive with TLS done and checked by our listener, so the
  // HTTP/2 server grpc-js builds for them must not add a TLS layer of its
  // own: these credentials only mean "speak HTTP/2 on what you are given".
  // getAuthContext() still sees the TLSSocket and its peer certificate.
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  listener = await startTlsListener({
    listen: config.server.listen,
    material,
    handshakeTimeoutMs: config.server.handshakeTimeoutMs,
    refusalsPerPeer: config.logging.auditRefusedHandshakesPerPeer,
    audit: opts.audit,
    logger,
    onConnection: (socket) => {
      connections.add(socket);
      injector.injectConnection(socket);
    },
  });
  const tls = listener;
  logger.info(
    { listen: config.server.listen, port: tls.port, instanceId, historyId: opts.manager.historyId },
    'bridge listening (TLS 1.3, mutual TLS)',
  );
  let metrics: MetricsListener | undefined;
  if (opts.metrics && config.metrics.listen !== '') {
    try {
      metrics = await startMetricsListener({
        listen: config.metrics.listen,
        material,
        handshakeTimeoutMs: config.server.handshakeTimeoutMs,
        refusalsPerPeer: config.logging.auditRefusedHandshakesPerPeer,
        source: opts.metrics,
        audit: opts.audit,
        logger,
      });
    } catch (err) {
      await tls.close();
      throw err;
    }
    logger.info(
      { listen: config.metrics.listen, port: metrics.port },
      'metrics listening at /metrics (HTTPS, mutual TLS)',
    );
  }

  let reloading: Promise<void> = Promise.resolve();
  const reload = (why: string, onlyIfChanged: boolean): Promise<void> => {
    const next = reloading.then(async () => {
      const m = await loadTlsMaterial(config.tls);
      if (onlyIfChanged && m.digest === tls.material().digest) return;
      const closed = tls.apply(m);
      metrics?.apply(m);
      for (const line of m.unusedCrls) logger.warn(line);
      logger.info(
        { why, closedConnections: closed, crls: m.revocationLists.length },
        'TLS material reloaded',
      );
    });
    reloading = next.catch(() => undefined);
    return next;
  };
  const watch = watchTlsFiles(
    [config.tls.caBundle, config.tls.cert, config.tls.key, ...config.tls.crl],
    () =>
      reload('file change', true).catch((err) =>
        logger.error({ err }, `TLS reload refused, keeping the previous material: ${err.message}`),
      ),
    TLS_WATCH_DEBOUNCE_MS,
    (err) => logger.warn({ err }, 'cannot watch the TLS files; reload them with SIGHUP'),
  );

  return {
    port: tls.port,
    metricsPort: metrics?.port,
    instanceId,
    reloadTls: () => reload('SIGHUP', false),
    markNotServing,
    shutdown: async (graceMs) => {
      markNotServing();
      watch.close();
      const metricsClosed = metrics?.close();
      // Stop accepting now; the listener reports closed once its last connection is gone.
      const closed = tls.close();
      await new Promise<void>((resolve) => {
        let cut: NodeJS.Timeout | undefined;
        const force = setTimeout(() => {
          // The grace is over: every open stream ends now, with UNAVAILABLE;
          // what has not ended shortly after is cut.
          serving.end(new ScopeEnded('shutdown'));
          cut = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, LAST_STATUS_MS);
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          clearTimeout(cut);
          resolve();
        });
      });
      tls.destroyAll();
      await closed;
      await metricsClosed;
    },
  };
}

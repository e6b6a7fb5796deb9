import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { JwtVerifier, loadIssuerKeys } from '@agent-bridge/auth';
import { type Audit, DENY_ALL, SessionManager, type SessionStore } from '@agent-bridge/bridge';
import { type BridgeConfig, compileRedactPattern } from '@agent-bridge/config';
import { type BridgeMetrics, createBridgeMetrics } from '@agent-bridge/metrics';
import type { Provider } from '@agent-bridge/providers';
import {
  type BridgeServer,
  startBridgeServer,
  startToolSocket,
  type ToolSocket,
  wireEventCodec,
} from '@agent-bridge/server';
import type { Logger } from 'pino';
import type { FleetMember } from './private/fleet-member.js';
import { toolServers } from './tool-servers.js';
import { VERSION } from './version.js';

export interface RunningDaemon {
  server: BridgeServer;
  manager: SessionManager;
  /** Graceful stop: refuse new work, stop every session within the grace period, close the server. */
  stop(): Promise<void>;
}

/**
 * Wires config and the providers built from it into the core, auth and
 * server, and starts listening. The providers come in already built (and
 * validated) so start-up creates them once.
 */
export async function startDaemon({
  config,
  providers,
  logger,
  audit,
  store,
  toolSocketPath,
  fleet,
}: {
  config: BridgeConfig;
  providers: Map<string, Provider>;
  logger: Logger;
  audit: Audit;
  /** Where sessions are kept; the caller opens it before and closes it after the daemon. */
  store?: SessionStore;
  /** The private socket of the agents' collaboration tools (docs/collaboration.md); none when absent. */
  toolSocketPath?: string;
  /** The daemon's fleet (config.fleet), joined by the caller; its `store` is the one given. */
  fleet?: FleetMember;
}): Promise<RunningDaemon> {
  // The first health probes start now, in the background: the first
  // session, Health and ListProviders never wait for them.
  for (const p of providers.values()) void p.health();
  // Metrics are kept only when someone can read them; they count decisions from the audit trail.
  const metrics: BridgeMetrics | undefined =
    config.metrics.listen === ''
      ? undefined
      : createBridgeMetrics({
          census: () => manager.census(),
          ...(store ? { storeSize: () => store.size() } : {}),
          ...(fleet ? { fleet: () => fleet.replication() } : {}),
        });
  const audited: Audit = metrics
    ? (record) => {
        metrics.audit(record);
        audit(record);
      }
    : audit;
  const keys = await loadIssuerKeys(config.auth.jwtPublicKeys);
  const verifier = new JwtVerifier({
    keys,
    clientIdentities: clientIdentitiesByIssuer(config.auth.jwtPublicKeys),
    requireCertBinding: config.auth.requireCertBinding,
    audience: config.auth.jwtAudience,
    maxTtlMs: config.auth.jwtMaxTtlMs,
    clockSkewMs: config.auth.clockSkewMs,
  });
  const s = config.sessions;
  const manager: SessionManager = new SessionManager({
    settings: {
      maxPerProject: s.maxPerProject,
      maxGlobal: s.maxGlobal,
      idleTimeoutMs: s.idleTimeoutMs,
      stopGracePeriodMs: s.stopGracePeriodMs,
      eventBufferSize: s.eventBufferSize,
      eventBufferBytes: s.eventBufferBytes,
      retentionMs: s.retentionMs,
      maxSubscribers: s.maxSubscribers,
      subscriberTtlMs: s.subscriberTtlMs,
      maxInputBytes: config.input.maxSizeBytes,
      allowedPaths: config.allowedPaths,
      startupTimeoutMs: (id) => config.providers[id]?.startupTimeoutMs ?? 30_000,
      permissionPolicy: (id) => {
        const p = config.providers[id];
        return p
          ? {
              mode: p.permissions,
              timeoutMs: p.permissionTimeoutMs,
              fallback: p.permissionDefault,
              autoAllow: p.autoAllow,
            }
          : DENY_ALL;
      },
      resume: (id) => config.providers[id]?.resume !== 'never',
      collaboration: (id) => config.providers[id]?.collaboration !== 'off',
    },
    providers,
    logger,
    redactPatterns: config.logging.redactPatterns.map(compileRedactPattern),
    audit: audited,
    codec: wireEventCodec(),
    ...(toolSocketPath !== undefined ? { toolServers: toolServers(toolSocketPath) } : {}),
    ...(fleet ? { collabRelay: fleet.collabRelay } : {}),
    ...(store ? { store } : {}),
    ...(metrics ? { observer: metrics.events } : {}),
  });
  let server: BridgeServer;
  let tools: ToolSocket | undefined;
  try {
    if (toolSocketPath !== undefined) {
      tools = await startToolSocket({
        path: toolSocketPath,
        tools: manager.collaboration.capabilities,
        logger,
      });
    }
    server = await startBridgeServer({
      config,
      manager,
      verifier,
      logger,
      audit: audited,
      version: VERSION,
      ...(metrics ? { metrics, observeCall: metrics.call } : {}),
      ...(fleet ? { lost: fleet.lost } : {}),
    });
    fleet?.attach(manager);
  } catch (err) {
    await tools?.close();
    await manager.shutdown();
    await fleet?.close(0);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    server,
    manager,
    stop: () => {
      stopping ??= (async () => {
        logger.info('shutting down: refusing new work, stopping sessions');
        server.markNotServing();
        await manager.shutdown();
        // The sessions' ends go to the fleet before this daemon leaves its directory.
        await fleet?.close(5000);
        await tools?.close();
        // This daemon's own directory (tools-<pid>): the capability files left in it are dead now.
        if (toolSocketPath !== undefined)
          rmSync(dirname(toolSocketPath), { recursive: true, force: true });
        await server.shutdown(2000);
        logger.info('shutdown complete');
      })();
      return stopping;
    },
  };
}

/** Each issuer's allowed certificate identities; an issuer listed twice (key rotation) gets both lists. */
function clientIdentitiesByIssuer(
  keys: BridgeConfig['auth']['jwtPublicKeys'],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const k of keys) out.set(k.issuer, [...(out.get(k.issuer) ?? []), ...k.clientIdentities]);
  return out;
}

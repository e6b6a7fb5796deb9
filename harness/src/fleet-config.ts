import type { NatsCluster } from './nats-cluster.js';

/**
 * The `fleet` section of a daemon's bridge.yaml on `cluster` (R3, its
 * client certificate), for a daemon listening on `port` of loopback.
 */
export function fleetConfig(
  cluster: NatsCluster,
  o: { name: string; daemonId: string; port: number; announceTtl?: string },
): Record<string, unknown> {
  return {
    name: o.name,
    daemon_id: o.daemonId,
    advertise: `127.0.0.1:${o.port}`,
    nats: {
      servers: cluster.urls,
      ca_bundle: cluster.pki.caPath,
      cert: cluster.pki.client.certPath,
      key: cluster.pki.client.keyPath,
    },
    replicas: 3,
    ...(o.announceTtl ? { announce_ttl: o.announceTtl } : {}),
  };
}

import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface NatsTarget {
  /** `tls://host:port` of one or more servers of the cluster. */
  servers: string[];
  /** PEM: the CA that signed the servers' certificates, and this client's certificate and key. */
  tls: { ca: string; cert: string; key: string };
  /** The connection's name, as the servers' monitoring shows it. */
  name: string;
  /** How long the first connection may take, all servers tried (default 10 s). */
  connectTimeoutMs?: number;
}

/**
 * A connection to a NATS cluster over mutual TLS, and only that: a
 * `nats://` server is refused before anything is sent. The first
 * connection ends within `connectTimeoutMs`, connected or refused; after
 * it, the connection comes back for as long as it lives (a node or the
 * whole cluster may return), trying the servers in the given order. Only
 * the given servers are tried: with the ones a cluster announces added
 * (nats.js 3.4), a refused first connection was retried without end.
 */
export async function connectNats(target: NatsTarget): Promise<NatsConnection> {
  const plain = target.servers.find((s) => !s.startsWith('tls://'));
  if (plain !== undefined) {
    throw new Error(
      `NATS server "${plain}" is not a tls:// address: the bridge talks to NATS over mutual TLS only`,
    );
  }
  if (target.servers.length === 0) throw new Error('no NATS server given');
  return connect({
    servers: target.servers,
    name: target.name,
    tls: target.tls,
    timeout: target.connectTimeoutMs ?? 10_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    noRandomize: true,
    ignoreClusterUpdates: true,
  });
}

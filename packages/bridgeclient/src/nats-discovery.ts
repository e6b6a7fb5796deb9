import { type KV, Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { DiscoveredDaemon, FleetDiscovery } from './fleet-discovery.js';

export interface NatsDiscoveryOptions {
  /** `tls://host:port` of one or more servers of the fleet's NATS cluster. */
  servers: string[];
  /** PEM: the CA of the NATS servers, and this client's certificate and key. */
  tls: { ca: string; cert: string; key: string };
  /** The fleet's name, as the daemons' `fleet.name`. */
  fleet: string;
  /** How long the first connection may take, every server tried. Default 10 s. */
  connectTimeoutMs?: number;
}

/**
 * The directory of a fleet of daemons on NATS JetStream, for
 * `new BridgeFleet({ discovery: { source, client } })`: the daemons that
 * announce themselves in the fleet's bucket `BRIDGE_<fleet>_daemons`
 * (each renewed while it runs, gone after its TTL when it is not), and the
 * daemon each session lives on (`BRIDGE_<fleet>_sessions`). Read only: it
 * needs a NATS user allowed to read the fleet's buckets. Mutual TLS only.
 */
export async function natsDiscovery(o: NatsDiscoveryOptions): Promise<FleetDiscovery> {
  const plain = o.servers.find((s) => !s.startsWith('tls://'));
  if (plain !== undefined) {
    throw new TypeError(`NATS server "${plain}" is not a tls:// address: mutual TLS only`);
  }
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(o.fleet)) {
    throw new TypeError(`fleet name "${o.fleet}" must be 1 to 64 of A-Z a-z 0-9 _ -`);
  }
  const nc = await connect({
    servers: o.servers,
    name: `bridgeclient discovery ${o.fleet}`,
    tls: o.tls,
    timeout: o.connectTimeoutMs ?? 10_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    noRandomize: true,
    ignoreClusterUpdates: true,
  });
  const kvm = new Kvm(nc);
  // Opened when first read: a fleet whose first daemon has not started yet has no buckets.
  const buckets = new Map<string, Promise<KV>>();
  const bucket = (name: string): Promise<KV> => {
    let b = buckets.get(name);
    if (!b) {
      b = kvm.open(`BRIDGE_${o.fleet}_${name}`);
      b.catch(() => buckets.delete(name));
      buckets.set(name, b);
    }
    return b;
  };
  return {
    async daemons() {
      const kv = await bucket('daemons').catch(noBucket);
      if (!kv) return []; // no daemon of the fleet has started yet
      const out: DiscoveredDaemon[] = [];
      for (const key of await bucketKeys(nc, `BRIDGE_${o.fleet}_daemons`)) {
        const e = await kv.get(key);
        if (e?.operation === 'PUT') out.push(e.json<DiscoveredDaemon>());
      }
      return out.sort((a, b) => a.id.localeCompare(b.id));
    },
    async ownerOf(sessionId) {
      const kv = await bucket('sessions').catch(noBucket);
      const e = await kv?.get(keyOf(sessionId));
      return e?.operation === 'PUT'
        ? e.json<{ owner: { daemonId: string } }>().owner.daemonId
        : undefined;
    },
    close: () => nc.close(),
  };
}

/**
 * The keys a bucket holds now, from its stream's subjects (one request a
 * page): `kv.keys()` would make a consumer per call, and wait for its idle
 * heartbeat when a key expires between its count and its delivery.
 */
async function bucketKeys(nc: NatsConnection, bucket: string): Promise<string[]> {
  const prefix = `$KV.${bucket}.`;
  const keys: string[] = [];
  for (let offset = 0; ; ) {
    const reply = await nc.request(
      `$JS.API.STREAM.INFO.KV_${bucket}`,
      JSON.stringify({ subjects_filter: `${prefix}>`, offset }),
      { timeout: 10_000 },
    );
    const info = reply.json<StreamInfoPage>();
    if (info.error) throw new Error(`reading the fleet's directory: ${info.error.description}`);
    const page = Object.keys(info.state?.subjects ?? {});
    keys.push(...page.map((s) => s.slice(prefix.length)));
    offset += page.length;
    if (page.length === 0 || offset >= (info.total ?? 0)) return keys;
  }
}

interface StreamInfoPage {
  error?: { description: string };
  total?: number;
  state?: { subjects?: Record<string, number> };
}

/** A bucket not created yet reads as empty; any other failure stands. */
function noBucket(err: unknown): undefined {
  if ((err as Error)?.name === 'StreamNotFoundError' || /stream not found/i.test(String(err))) {
    return undefined;
  }
  throw err;
}

/** A session's key in the fleet's bucket: its id, or `=` and its UTF-8 bytes in hex when it holds other characters. */
function keyOf(id: string): string {
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : `=${Buffer.from(id, 'utf8').toString('hex')}`;
}

import type { BridgeConfig, FleetConfig } from '../types.js';
import type { NodeReader } from './node-reader.js';
import { duration, file, int, optional, section, strings, type Table, text } from './schema.js';

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/;
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

const NATS: Table<FleetConfig['nats']> = {
  servers: [
    'servers',
    strings((v) =>
      v.startsWith('tls://') ? undefined : `must be a tls:// address (mutual TLS only), got "${v}"`,
    ),
  ],
  caBundle: ['ca_bundle', file()],
  cert: ['cert', file()],
  key: ['key', file()],
};

const FLEET: Table<FleetConfig> = {
  name: [
    'name',
    text(undefined, (v) => (TOKEN.test(v) ? undefined : 'must be 1 to 64 of A-Z a-z 0-9 _ -')),
  ],
  daemonId: [
    'daemon_id',
    text('', (v) => (v === '' || TOKEN.test(v) ? undefined : 'must be 1 to 64 of A-Z a-z 0-9 _ -')),
  ],
  advertise: [
    'advertise',
    text(undefined, (v) => (HOST_PORT.test(v) ? undefined : `must be host:port, got "${v}"`)),
  ],
  nats: ['nats', section(NATS)],
  replicas: ['replicas', int(1, 1, 5)],
  announceTtlMs: ['announce_ttl', duration('15s', 3000)],
  retentionMs: ['retention', duration('168h', 60_000)],
};

/** The `fleet` section: absent for a daemon on its own. */
export const fleetSection = optional(section(FLEET));

/** What the fleet section needs of the rest. */
export function checkFleet(config: BridgeConfig, r: NodeReader): void {
  if (!config.fleet) return;
  if (config.fleet.nats.servers.length === 0 && !r.hasProblem('fleet.nats.servers')) {
    r.fail('fleet.nats.servers', undefined, 'must name at least one NATS server');
  }
  if (config.storage.backend === 'memory') {
    // The fleet is fed from the embedded store, which holds what NATS lacks during an outage.
    r.fail('fleet', undefined, 'needs storage.backend: embedded');
  }
}

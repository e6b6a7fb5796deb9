import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * The keys a KV bucket holds now (a deleted key's marker included: read
 * the key to tell), from its stream's subjects in one request, paged by
 * the server when there are many. `kv.keys()` makes a consumer for each
 * call instead: in a cluster that is a round of the meta group, and a key
 * that expires between the consumer's count and its delivery keeps the
 * listing waiting for the consumer's idle heartbeat.
 */
export async function bucketKeys(
  nc: NatsConnection,
  bucket: string,
  filter = '>',
): Promise<string[]> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const prefix = `$KV.${bucket}.`;
  const info = await jsm.streams.info(`KV_${bucket}`, { subjects_filter: `${prefix}${filter}` });
  return Object.keys(info.state.subjects ?? {})
    .map((s) => s.slice(prefix.length))
    .sort();
}

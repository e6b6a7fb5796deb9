import { DeliverPolicy, type JetStreamClient, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { fleetPrefix, subjectToken } from './subjects.js';

/**
 * The context bus of a fleet's projects in the fleet's stream (its
 * `bridge.<fleet>.collab.<project>` subjects, beside the events; the
 * stream is made by FleetEvents.open): each daemon publishes the posts
 * made on it, and follows every post of the fleet, from the oldest kept,
 * to hold the others' too. A post is published with its origin as its
 * id, so a repeat within the duplicate window is stored once; a reader
 * drops repeats by origin as well.
 */
export class FleetBoard {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly stream: string,
    private readonly prefix: string,
  ) {}

  static open(nc: NatsConnection, opts: { fleet: string; publishTimeoutMs?: number }): FleetBoard {
    const prefix = fleetPrefix(opts.fleet);
    return new FleetBoard(
      jetstream(nc, { timeout: opts.publishTimeoutMs ?? 10_000 }),
      `BRIDGE_${opts.fleet}`,
      prefix,
    );
  }

  /** Stores one post (`data`, as its daemon encoded it) of project `projectId`. */
  async publish(projectId: string, origin: string, data: Uint8Array): Promise<void> {
    await this.js.publish(`${this.prefix}.collab.${subjectToken(projectId)}`, data, {
      msgID: `post:${origin}`,
    });
  }

  /** Every post of the fleet kept, oldest first, then each new one, until `signal` aborts. */
  async *follow(signal: AbortSignal): AsyncGenerator<Uint8Array> {
    const consumer = await this.js.consumers.get(this.stream, {
      filter_subjects: `${this.prefix}.collab.>`,
      deliver_policy: DeliverPolicy.All,
    });
    const messages = await consumer.consume({ max_messages: 256 });
    const stop = () => void messages.close();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const m of messages) yield m.data;
    } finally {
      signal.removeEventListener('abort', stop);
      await messages.close();
    }
  }
}

import { setTimeout as delay } from 'node:timers/promises';
import type { CollabRelay, FleetMessage, FleetPost, Member } from '@agent-bridge/bridge';
import type { FleetBoard } from '@agent-bridge/jetstream';
import { joined } from './join-fleet.js';
import { LatestWrites } from './latest-writes.js';

export interface FleetCollabOptions {
  /** The fleet's board, once the daemon has joined. */
  board: Promise<FleetBoard>;
  /** `<daemon>/<history>`: the origin prefix of the posts made here. */
  self: string;
  lifetime: AbortSignal;
  /** A publish or the following failed (each is tried again). */
  failed(what: string, err: Error): void;
  /** The live sessions of a project on the other daemons. */
  members(projectId: string): Member[];
}

/**
 * The context bus and messages across a fleet, for one daemon: `relay`
 * gives the fleet each post made here and each message sent here to a
 * session of another daemon (retried until it lands) and names the other
 * daemons' live sessions; `follow` hands every post and message made
 * elsewhere, from the oldest the fleet keeps, to the core (which drops
 * repeats and messages for sessions not here), following on as long as
 * the daemon lives and starting again after a failure.
 */
export function fleetCollab(o: FleetCollabOptions): {
  relay: CollabRelay;
  follow(take: {
    post: (post: FleetPost) => Promise<void>;
    message: (message: FleetMessage) => Promise<void>;
  }): void;
  waiting(): number;
} {
  const writes = new LatestWrites(o.lifetime, (key, err) => o.failed(key, err));
  const board = () => joined(o.board, o.lifetime);
  return {
    relay: {
      self: o.self,
      posted: (post) => {
        const data = Buffer.from(JSON.stringify({ post }));
        writes.set(`post ${post.origin}`, async () =>
          (await board()).publish(post.projectId, post.origin, data),
        );
      },
      sent: (message) => {
        const data = Buffer.from(JSON.stringify({ message }));
        writes.set(`message ${message.origin}`, async () =>
          (await board()).publish(message.projectId, message.origin, data),
        );
      },
      members: (projectId) => o.members(projectId),
    },
    waiting: () => writes.waiting,
    follow: (take) => {
      void (async () => {
        let pause = 500;
        while (!o.lifetime.aborted) {
          try {
            for await (const data of (await board()).follow(o.lifetime)) {
              const item = parsed(data);
              if (!item) {
                o.failed('a fleet post', new Error('neither a post nor a message: skipped'));
                continue;
              }
              if ('post' in item) {
                if (!item.post.origin.startsWith(`${o.self}/`)) await take.post(item.post);
              } else if (!item.message.origin.startsWith(`${o.self}/`)) {
                await take.message(item.message);
              }
              pause = 500;
            }
          } catch (err) {
            if (o.lifetime.aborted) return;
            o.failed('following the fleet posts', err as Error);
          }
          await delay(pause, undefined, { signal: o.lifetime }).catch(() => undefined);
          pause = Math.min(pause * 2, 30_000);
        }
      })();
    },
  };
}

/** A post or message as another daemon published it; undefined for anything else. */
function parsed(data: Uint8Array): { post: FleetPost } | { message: FleetMessage } | undefined {
  try {
    const item = JSON.parse(Buffer.from(data).toString('utf8')) as {
      post?: FleetPost;
      message?: FleetMessage;
    };
    const p = item.post ?? item.message;
    const ok =
      typeof p?.origin === 'string' &&
      typeof p.projectId === 'string' &&
      typeof p.content === 'string' &&
      typeof p.from?.id === 'string' &&
      (item.post ? Array.isArray(item.post.targets) : typeof item.message?.to?.id === 'string');
    if (!ok) return undefined;
    return item.post ? { post: item.post } : { message: item.message! };
  } catch {
    return undefined;
  }
}

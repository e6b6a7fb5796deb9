import type { BytesStreamingServer } from './event-wire.js';
import { callKit } from './private/call-kit.js';
import { collabHandlers } from './private/collab-handlers.js';
import { daemonHandlers } from './private/daemon-handlers.js';
import { eventStreams } from './private/event-streams.js';
import { sessionHandlers } from './private/session-handlers.js';
import type { ServiceContext } from './service-context.js';

/**
 * Maps BridgeService RPCs to the core. Every handler is wrapped
 * (private/unary-call.ts, private/stream-call.ts) so that authentication,
 * rate limits, the one audit record of every call and error mapping
 * (status-map.ts) happen there, once; there is no interceptor.
 */
export function createBridgeService(ctx: ServiceContext): BytesStreamingServer {
  const kit = callKit(ctx);
  return {
    ...sessionHandlers(kit),
    ...eventStreams(kit),
    ...daemonHandlers(kit),
    ...collabHandlers(kit),
  };
}

import { collectGarbage, heapSnapshotFlags } from '@agent-bridge/harness';
import type { SessionEvent } from '@agent-bridge/proto';
import type { ClientReadableStream } from '@grpc/grpc-js';
import { AGENTS, startBenchBridge } from './bench-bridge.js';
import { inFlight } from './in-flight.js';
import { jsMemoryBytes } from './metrics.js';
import type { Row } from './row.js';
import type { Sizes } from './sizes.js';
import { attach, streamClients } from './stream-clients.js';

/** Client connections the streams share (grpc-js multiplexes each over HTTP/2). */
const CONNECTIONS = 4;

/**
 * B7, an open stream: what the daemon's JavaScript keeps (used heap plus
 * external memory) for each `StreamEvents` subscriber of an idle session,
 * read after a full collection before and after `memoryStreams` streams
 * are opened and attached. The capacity row's RSS moves with the
 * collector's timing; this is the live memory a stream costs.
 */
export async function streamMemoryRows(s: Sizes): Promise<Row[]> {
  const sessions = Math.max(1, Math.ceil(s.memoryStreams / 50));
  const bridge = await startBenchBridge({
    nodeOptions: heapSnapshotFlags,
    config: {
      metrics: { listen: '127.0.0.1:0' },
      server: { max_concurrent_streams: s.memoryStreams + 64 },
      sessions: {
        max_global: sessions,
        max_per_project: sessions,
        max_subscribers: Math.ceil(s.memoryStreams / sessions) + 1,
      },
    },
  });
  const clients = streamClients(bridge, CONNECTIONS);
  const streams: ClientReadableStream<SessionEvent>[] = [];
  const live = async () => {
    await collectGarbage(bridge.daemon.pid, bridge.scratch);
    const js = await jsMemoryBytes(bridge.daemon.metricsPort, bridge.pki);
    return js.heap + js.external;
  };
  try {
    const ids: string[] = [];
    await inFlight(sessions, 16, async () => {
      ids.push(await bridge.start(AGENTS.idle));
    });
    // One stream opened and closed first: what the first call loads is not counted.
    await attach(clients[0]!, ids[0]!, bridge.md).then((st) => st.cancel());
    const before = await live();
    await inFlight(s.memoryStreams, 256, async (i) => {
      streams.push(await attach(clients[i % CONNECTIONS]!, ids[i % ids.length]!, bridge.md));
    });
    const after = await live();
    return [
      {
        id: 'B7',
        name: 'an open StreamEvents stream: daemon heap + external after a full GC',
        value: (after - before) / s.memoryStreams,
        unit: 'B',
        better: 'lower',
        target: { max: 16 * 1024, on: 'value' },
        note: `per stream, over ${s.memoryStreams} streams of ${sessions} idle sessions`,
      },
    ];
  } finally {
    for (const st of streams) st.cancel();
    for (const c of clients) c.close();
    await bridge.close();
  }
}

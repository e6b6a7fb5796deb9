import type { EventSlice } from '@agent-bridge/bridge';
import type { StreamEventsRequest } from '@agent-bridge/proto';
import {
  type BytesStreamingServer,
  batchMessage,
  eventMessage,
  sessionSuffix,
} from '../event-wire.js';
import type { CallKit } from './call-kit.js';
import { callerSeq } from './caller-seq.js';
import { historyHeader } from './history-header.js';
import { orLost } from './lost-fallback.js';
import { type StreamHandler, streamCall } from './stream-call.js';

/** Events per StreamEventBatches message, and a byte cap well under the 4 MiB message limit. */
const BATCH = { maxEvents: 512, maxBytes: 1024 * 1024 };
/** StreamEvents pulls in small slices; each event is still its own message. */
const SINGLE = { maxEvents: 64, maxBytes: 1024 * 1024 };

/**
 * StreamEvents and StreamEventBatches: a session's events from a position
 * (replay, live tail, end after the terminal event), as the core's reader
 * yields them. They write bytes encoded once per event (see event-wire.ts);
 * the service is registered with serializers that pass them through.
 */
export function eventStreams(
  kit: CallKit,
): Pick<BytesStreamingServer, 'streamEvents' | 'streamEventBatches'> {
  const { manager, lost } = kit.ctx;
  const events =
    (
      batch: { maxEvents: number; maxBytes: number },
      encode: (slice: EventSlice, suffix: Buffer) => readonly Buffer[],
    ): StreamHandler<StreamEventsRequest, EventSlice> =>
    async (caller, req, signal) => {
      const request = (lastSeq: () => number) => ({
        sessionId: req.sessionId,
        afterSeq:
          req.afterSeq === undefined
            ? undefined
            : callerSeq(req.afterSeq, 'after_seq', () => ({ lastSeq: lastSeq() })),
        subscriberId: req.subscriberId,
      });
      const { stream, historyId } = await orLost(
        lost,
        () => ({
          stream: manager.openStream(
            caller,
            request(() => manager.get(caller, req.sessionId).lastSeq),
            signal,
            batch,
          ),
          historyId: manager.historyId,
        }),
        // A lost session's history belongs to its own daemon's store.
        (l) =>
          l.openStream(
            caller,
            request(() => Number.MAX_SAFE_INTEGER),
            signal,
            batch,
          ),
      );
      // The session's identity, encoded once for the stream when its first slice is sent.
      let suffix: Buffer | undefined;
      return {
        source: stream,
        // Before any event: which history they belong to, for the reader's acks.
        headers: historyHeader(historyId),
        encode: (slice) => {
          suffix ??= sessionSuffix(stream.session);
          return encode(slice, suffix);
        },
        close: () => stream.close(),
      };
    };
  return {
    streamEvents: streamCall(
      kit,
      'StreamEvents',
      events(SINGLE, (slice, suffix) =>
        Array.from({ length: slice.count }, (_, i) => eventMessage(slice, i, suffix)),
      ),
    ),
    streamEventBatches: streamCall(
      kit,
      'StreamEventBatches',
      events(BATCH, (slice, suffix) => [batchMessage(slice, suffix)]),
    ),
  };
}

import { within } from '@agent-bridge/harness';
import type { BridgeServiceClient, StreamEventsRequest } from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { openRawStream, readUntil, type WireEvent } from './stream-reader.js';

const READ_TIMEOUT_MS = 10 * 60_000;

export interface TimedRead {
  what: string;
  client: BridgeServiceClient;
  md: Metadata;
  request: StreamEventsRequest;
  batched: boolean;
  done: (e: WireEvent) => boolean;
  /**
   * What makes the data flow once the stream is attached (the daemon's live
   * rows send the agent its go line); without it the clock starts at the
   * call, and the first message is the data itself.
   */
  trigger?: () => Promise<unknown>;
}

/** Seconds from the call (or the trigger) to the event for which `done` held. */
export async function timedRead(t: TimedRead): Promise<number> {
  let t0 = process.hrtime.bigint();
  const stream = openRawStream(t.client, t.batched, t.request, t.md);
  const read = readUntil(t.what, stream, t.batched, t.done, READ_TIMEOUT_MS);
  if (t.trigger) {
    await within(`${t.what}: the first event, before the agent is let go`, read.first, 30_000);
    t0 = process.hrtime.bigint();
    await t.trigger();
  }
  const end = await read.done;
  return Number(end - t0) / 1e9;
}

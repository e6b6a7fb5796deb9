import type { SessionEvent as ProtoEvent } from '@agent-bridge/proto';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import type { SessionEvent } from '../types.js';
import { eventFromWire } from './convert.js';

/** The daemon's trailer on a stream it ended because the token that opened it expired. */
const AUTH_EXPIRED_TRAILER = 'bridge-auth-expired';

/** The daemon's header naming the history a stream's events belong to. */
export const HISTORY_HEADER = 'bridge-history-id';

export type Reader =
  | ClientReadableStream<ProtoEvent>
  | ClientReadableStream<{ events: ProtoEvent[] }>;

/** The stream's messages as arrays of events. */
export async function* messages(reader: Reader, batch: boolean): AsyncGenerator<SessionEvent[]> {
  for await (const msg of reader) {
    yield batch
      ? (msg as { events: ProtoEvent[] }).events.map(eventFromWire)
      : [eventFromWire(msg as ProtoEvent)];
  }
}

/** True when the daemon ended the stream only because the token that opened it expired. */
export function isAuthExpiry(err: unknown): boolean {
  const e = err as Partial<ServiceError>;
  return e.code === 16 /* UNAUTHENTICATED */ && e.metadata?.get(AUTH_EXPIRED_TRAILER)[0] === 'true';
}

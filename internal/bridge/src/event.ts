import type { EventData, EventStream, EventType } from '@agent-bridge/providers';

/** A stored event of a session (the proto's SessionEvent). */
export interface BridgeEvent {
  seq: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  sessionId: string;
  projectId: string;
  provider: string;
  type: EventType;
  stream: EventStream;
  text: string;
  done: boolean;
  error: string;
  turnId: string;
  data: EventData | undefined;
}

/** Terminal events end a session's stream. */
export function isTerminal(e: BridgeEvent): boolean {
  return e.type === 'SESSION_STOPPED' || e.type === 'SESSION_FAILED';
}

/** Fixed per-event cost counted against the ring's byte bound, besides text and data. */
export const EVENT_OVERHEAD_BYTES = 64;

/**
 * What an event costs against `event_buffer_bytes`: UTF-8 bytes of its text,
 * of its data as JSON, and a fixed overhead. A unit, not a guess of heap size.
 */
export function eventBytes(e: BridgeEvent): number {
  let n = EVENT_OVERHEAD_BYTES + Buffer.byteLength(e.text, 'utf8') + e.error.length;
  if (e.data !== undefined) n += Buffer.byteLength(JSON.stringify(e.data), 'utf8');
  return n;
}

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

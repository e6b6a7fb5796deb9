/** What an event records; the names match the proto's EVENT_TYPE_* values without the prefix. */
export type EventType =
  | 'SESSION_STARTED'
  | 'SESSION_STOPPED'
  | 'SESSION_FAILED'
  | 'STDOUT'
  | 'STDERR'
  | 'INPUT_RECEIVED'
  | 'BUFFER_OVERFLOW'
  | 'TURN_STARTED'
  | 'AGENT_MESSAGE_DELTA'
  | 'AGENT_MESSAGE'
  | 'TOOL_CALL'
  | 'TOOL_RESULT'
  | 'TURN_COMPLETED'
  | 'AGENT_ERROR'
  | 'PERMISSION_REQUESTED'
  | 'PERMISSION_RESOLVED'
  | 'SESSION_RESUMED'
  | 'CONTEXT_POSTED'
  | 'MESSAGE_SENT'
  | 'MESSAGE_RECEIVED';

export type EventStream = 'system' | 'stdout' | 'stderr';

/** JSON-compatible payload of an event (becomes google.protobuf.Struct on the wire). */
export type EventData = Record<string, unknown>;

/** An event as a provider reports it; the core adds seq, timestamp and session identity. */
export interface AgentEvent {
  type: EventType;
  stream: EventStream;
  text: string;
  done?: boolean;
  error?: string;
  turnId?: string;
  data?: EventData;
}

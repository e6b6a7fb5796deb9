export { AllowedPaths } from './allowed-paths.js';
export { CursorStore } from './cursors.js';
export { BridgeError, type ErrorKind } from './errors.js';
export { type BridgeEvent, EVENT_OVERHEAD_BYTES, eventBytes, isTerminal } from './event.js';
export { overflowEvent, readEvents } from './event-reader.js';
export { EventRing } from './event-ring.js';
export { createRedactor, REDACTED, type Redactor } from './redactor.js';
export {
  type EventStream,
  SessionManager,
  type SessionManagerDeps,
  type StreamRequest,
} from './session-manager.js';
export type {
  Caller,
  Clock,
  CoreSettings,
  Logger,
  SessionSnapshot,
  SessionStatus,
  StartRequest,
} from './types.js';
export { systemClock } from './types.js';
export { checkSessionId, checkSubscriberId } from './validate.js';

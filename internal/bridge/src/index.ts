export type { Clock, Timers } from './clock.js';
export { BridgeError, type ErrorKind } from './errors.js';
export type { BridgeEvent } from './event.js';
export { createRedactor } from './redactor.js';
export { SessionManager, type SessionManagerDeps } from './session-manager.js';
export type { BatchLimits, EventStream, StreamRequest } from './subscriptions.js';
export type {
  Caller,
  CoreSettings,
  Logger,
  SessionSnapshot,
  SessionStatus,
  StartRequest,
} from './types.js';

export { BridgeError, type ErrorKind } from './errors.js';
export type { BridgeEvent } from './event.js';
export { createRedactor } from './redactor.js';
export { SessionManager } from './session-manager.js';
export type { EventStream } from './subscriptions.js';
export type { SessionSnapshot, SessionStatus } from './types.js';

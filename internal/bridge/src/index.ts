export {
  type Audit,
  type AuditIdentity,
  type AuditKind,
  type AuditRecord,
  noAudit,
} from './audit.js';
export { BridgeError, type ErrorKind } from './errors.js';
export type { BridgeEvent } from './event.js';
export { createRedactor, type Redactor } from './redactor.js';
export { SessionManager } from './session-manager.js';
export type { EventStream } from './subscriptions.js';
export type { SessionSnapshot, SessionStatus } from './types.js';

export {
  type Audit,
  type AuditIdentity,
  type AuditKind,
  type AuditRecord,
  noAudit,
} from './audit.js';
export { type Clock, systemClock } from './clock.js';
export { BridgeError, type ErrorKind, exhausted, unavailable } from './errors.js';
export type { BridgeEvent } from './event.js';
export { type EventCodec, jsonEventCodec, type SessionIdentity } from './event-codec.js';
export { type EventObserver, noEventObserver } from './event-observer.js';
export { EventRedactor } from './event-redactor.js';
export { EventSlice, type SliceParts } from './event-slice.js';
export { DENY_ALL, type PermissionPolicy } from './permission-policy.js';
export { createRedactor, REDACTED, type Redactor, SecretRedactor } from './redactor.js';
export { SessionManager } from './session-manager.js';
export type { EventStream } from './subscriptions.js';
export { type BucketLimit, TokenBuckets } from './token-buckets.js';
export type {
  Caller,
  PermissionAnswer,
  SessionCensus,
  SessionSnapshot,
  SessionStatus,
} from './types.js';

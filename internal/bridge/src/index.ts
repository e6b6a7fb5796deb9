export {
  type Audit,
  type AuditIdentity,
  type AuditKind,
  type AuditRecord,
  noAudit,
} from './audit.js';
export { type Clock, systemClock } from './clock.js';
export type { ToolServers } from './collaboration/collab-ports.js';
export type {
  CollabSnapshot,
  CollabStore,
  StoredAck,
} from './collaboration/collab-store.js';
export type * from './collaboration/collab-types.js';
export type {
  CollabRelay,
  FleetMessage,
  FleetPost,
} from './collaboration/fleet-posts.js';
export { BridgeError, type ErrorKind, exhausted, unavailable } from './errors.js';
export type { BridgeEvent } from './events/event.js';
export { type EventCodec, jsonEventCodec, type SessionIdentity } from './events/event-codec.js';
export { type EventObserver, noEventObserver } from './events/event-observer.js';
export { EventSlice, type SliceParts } from './events/event-slice.js';
export type { EventStream } from './events/subscriptions.js';
export { type LostSession, LostSessions } from './fleet/lost-sessions.js';
export type * from './fleet/sessions-elsewhere.js';
export { type BucketLimit, TokenBuckets } from './limits/token-buckets.js';
export { DENY_ALL, type PermissionPolicy } from './permissions/permission-policy.js';
export { EventRedactor } from './redaction/event-redactor.js';
export { createRedactor, REDACTED, type Redactor, SecretRedactor } from './redaction/redactor.js';
export type { Listable } from './sessions/list-sessions.js';
export { SessionManager } from './sessions/session-manager.js';
export { memoryStore } from './store/memory-store.js';
export type * from './store/session-store.js';
export type {
  Caller,
  PermissionAnswer,
  SessionCensus,
  SessionSnapshot,
  SessionStatus,
} from './types.js';

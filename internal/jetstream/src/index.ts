export { batchesOf, type StoredEvent } from './event-batch.js';
export { FleetBoard } from './fleet-board.js';
export {
  type DaemonAnnouncement,
  type DirectoryEntry,
  FleetDirectory,
  type FleetDirectoryOptions,
  placeSession,
} from './fleet-directory.js';
export {
  FleetEvents,
  type FleetEventsOptions,
  SEQ_HEADER,
  type SessionTail,
} from './fleet-events.js';
export {
  type FleetCursor,
  type FleetSessionRecord,
  FleetSessions,
  type FleetSessionsOptions,
  type SessionOwner,
} from './fleet-sessions.js';
export { connectNats, type NatsTarget } from './nats-connect.js';
export { eventMsgId, fleetPrefix, kvKey, sessionSubject, subjectToken } from './subjects.js';

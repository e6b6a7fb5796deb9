export { BridgeClient } from './client.js';
export type {
  BridgeMessage,
  ContextBus,
  ContextPage,
  ContextPost,
  Messages,
  Party,
  PostOptions,
  Priority,
  ReadOptions,
  Recipient,
  SendOptions,
} from './collaboration.js';
export {
  type Cursor,
  type CursorKey,
  type CursorStore,
  FileCursorStore,
  MemoryCursorStore,
} from './cursor-store.js';
export {
  AlreadyExistsError,
  BridgeError,
  CursorLostError,
  DeadlineExceededError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  OutOfRangeError,
  PermissionDeniedError,
  ResourceExhaustedError,
  type StatusName,
  TlsRefusalError,
  type TlsRefusalReason,
  UnauthenticatedError,
  UnavailableError,
} from './errors.js';
export { EventStream } from './event-stream.js';
export type { EventStreamOptions } from './event-stream-options.js';
export { BridgeFleet } from './fleet.js';
export type {
  DiscoveredDaemon,
  FleetDiscovery,
  FleetDiscoveryOptions,
} from './fleet-discovery.js';
export type {
  BridgeFleetOptions,
  DaemonStatus,
  FleetDaemon,
  FleetSession,
} from './fleet-types.js';
export type {
  BridgeClientOptions,
  CallOptions,
  JwtFunctionOptions,
  JwtOptions,
  MtlsOptions,
  PemSource,
  RetryOptions,
  TokenFunction,
} from './options.js';
export {
  awaitsAnswer,
  type PermissionDecision,
  type PermissionRequest,
  type PermissionResolution,
  permissionRequest,
  permissionResolution,
} from './permissions.js';
export type { TaskOptions, TaskPermissions } from './run-task.js';
export type { ListSessionsOptions, StartSessionRequest } from './session-requests.js';
export type { TaskReport, TaskStatus, TaskToolCall } from './task-report.js';
export {
  type EventType,
  type Health,
  type InterruptResult,
  isTerminal,
  type ProbeState,
  type ProviderAuthState,
  type ProviderHealth,
  type ProviderInfo,
  type SentInput,
  type SessionEvent,
  type SessionInfo,
  type SessionPage,
  type SessionStatus,
  type StartedSession,
  type VersionCoverage,
} from './types.js';

// The contract face of the providers: what the core may use. A provider and
// the agent it runs (Provider, AgentHandle, SessionSpec), the events agents
// produce, the permission vocabulary the core's gate answers in, and the
// errors a start or an input can end with. How providers are built, spawned
// and watched is the host face (host.ts), for cmd/bridge and the server.

export { type ExitInfo, InputClosedError, SpawnError, StartupError } from './contract/errors.js';
export type { AgentEvent, EventData, EventStream, EventType } from './contract/events.js';
export { OutputGate } from './contract/output-gate.js';
export {
  type AskPermission,
  PERMISSION_DECISIONS,
  type PermissionAsk,
  type PermissionDecision,
  type PermissionVerdict,
} from './contract/permission.js';
export type {
  AgentHandle,
  AuthState,
  OptionRefusal,
  ProbeState,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  ResumePoint,
  SessionSpec,
  ToolServer,
} from './contract/provider.js';
export type { VersionCoverage } from './health/tested-versions.js';

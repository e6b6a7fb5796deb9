// The host face of the providers: what the daemon's entry point (cmd/bridge),
// the server and the tests use to build, run and watch providers. The core
// never imports it; what it may use is the contract, index.ts.
export { AcpProvider } from './acp/acp-provider.js';
export { resolveBinary } from './binary-probe.js';
export { ClaudeProvider } from './claude/claude-provider.js';
export { CodexProvider } from './codex/codex-provider.js';
export { createProbeHost, type ProbeHost } from './health-monitor.js';
export { LineSplitter } from './line-splitter.js';
export { LiveProcessGroups, trackingSpawner } from './live-process-groups.js';
export { MOCK_AGENT_PATH, MockProvider } from './mock-provider.js';
export { sweepOrphanedGroups } from './orphan-sweep.js';
export { OrphanWatchdog } from './orphan-watchdog.js';
export { ensurePrivateDirectory, makeDirectories } from './private-directory.js';
export { readBootId, readStartTime } from './proc-stat.js';
export { ProcessGroupRecord, type RecordOwner, recordFile } from './process-group-record.js';
export type { RecordedGroup } from './recorded-group.js';
export {
  createProviders,
  KNOWN_AGENT_IDS,
  ProviderConfigError,
  type ProviderDefinition,
  type ProviderHost,
  resolveProviderDefinition,
} from './registry.js';
export { StartupGate } from './startup-gate.js';
export { StdioProvider } from './stdio-provider.js';
export { SupervisedProcess } from './supervised-process.js';
export type { SupervisionLog } from './supervision-log.js';

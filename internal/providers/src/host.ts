// The host face of the providers: what the daemon's entry point (cmd/bridge),
// the server and the tests use to build, run and watch providers. The core
// never imports it; what it may use is the contract, index.ts.
export { AcpProvider } from './acp/acp-provider.js';
export { ClaudeProvider } from './claude/claude-provider.js';
export { CodexProvider } from './codex/codex-provider.js';
export { resolveBinary } from './health/binary-probe.js';
export { createProbeHost, type ProbeHost } from './health/health-monitor.js';
export { MOCK_AGENT_PATH, MockProvider } from './mock/mock-provider.js';
export { LineSplitter } from './process/line-splitter.js';
export { ensurePrivateDirectory, makeDirectories } from './process/private-directory.js';
export { StartupGate } from './process/startup-gate.js';
export { SupervisedProcess } from './process/supervised-process.js';
export {
  createProviders,
  KNOWN_AGENT_IDS,
  ProviderConfigError,
  type ProviderDefinition,
  type ProviderHost,
  resolveProviderDefinition,
} from './registry.js';
export { StdioProvider } from './stdio/stdio-provider.js';
export { LiveProcessGroups, trackingSpawner } from './watchdog/live-process-groups.js';
export { sweepOrphanedGroups } from './watchdog/orphan-sweep.js';
export { OrphanWatchdog } from './watchdog/orphan-watchdog.js';
export { readBootId, readStartTime } from './watchdog/proc-stat.js';
export {
  ProcessGroupRecord,
  type RecordOwner,
  recordFile,
} from './watchdog/process-group-record.js';
export type { RecordedGroup } from './watchdog/recorded-group.js';
export type { SupervisionLog } from './watchdog/supervision-log.js';

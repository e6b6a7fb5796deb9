export { AcpProvider } from './acp/acp-provider.js';
export { resolveBinary } from './binary-probe.js';
export { ClaudeProvider } from './claude/claude-provider.js';
export { CodexProvider } from './codex/codex-provider.js';
export type { AgentEvent, EventData, EventStream, EventType } from './events.js';
export { LineSplitter } from './line-splitter.js';
export { MOCK_AGENT_PATH, MockProvider } from './mock-provider.js';
export type {
  AgentHandle,
  AuthState,
  OptionRefusal,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  SessionSpec,
} from './provider.js';
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
export {
  type ExitInfo,
  InputClosedError,
  SpawnError,
  StartupError,
  SupervisedProcess,
} from './supervised-process.js';

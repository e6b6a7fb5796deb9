export { CachedProbe, probeOutput, resolveBinary } from './binary-probe.js';
export { childEnv, INHERITED_ENV } from './child-env.js';
export type { AgentEvent, EventData, EventStream, EventType } from './events.js';
export { LineSplitter, MAX_LINE_BYTES } from './line-splitter.js';
export { MOCK_AGENT_PATH, MockProvider } from './mock-provider.js';
export type {
  AgentHandle,
  AuthState,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  SessionSpec,
} from './provider.js';
export { ADAPTER_NAMES, createProviders, type ProviderDefinition } from './registry.js';
export { type ProcessProviderOptions, StdioProvider } from './stdio-provider.js';
export {
  type ExitInfo,
  InputClosedError,
  SpawnError,
  StartupError,
  SupervisedProcess,
} from './supervised-process.js';

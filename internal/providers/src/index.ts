export { ACP_OPTION_SPECS, AcpProvider, type AcpProviderOptions } from './acp/acp-provider.js';
export { CachedProbe, probeOutput, resolveBinary } from './binary-probe.js';
export { childEnv, INHERITED_ENV } from './child-env.js';
export { ClaudeProvider } from './claude/claude-provider.js';
export { CodexProvider } from './codex/codex-provider.js';
export type { AgentEvent, EventData, EventStream, EventType } from './events.js';
export { JsonRpcError, JsonRpcPeer, type JsonRpcPeerOptions } from './json-rpc-peer.js';
export { LineSplitter, MAX_LINE_BYTES } from './line-splitter.js';
export { MOCK_AGENT_PATH, MockProvider } from './mock-provider.js';
export { MODEL_OPTION, OptionPolicy, type OptionSpec, type OptionSpecs } from './option-policy.js';
export type {
  AgentHandle,
  AuthState,
  Provider,
  ProviderCapabilities,
  ProviderStatus,
  SessionSpec,
} from './provider.js';
export {
  ADAPTER_NAMES,
  createProviders,
  KNOWN_AGENT_IDS,
  ProviderConfigError,
  type ProviderDefinition,
  type ProviderHost,
  resolveProviderDefinition,
} from './registry.js';
export { type ProcessProviderOptions, StdioProvider } from './stdio-provider.js';
export {
  type AuthProbe,
  type DriverContext,
  MAX_PROTOCOL_LINE_BYTES,
  type ProtocolDriver,
  parseJsonLine,
  StructuredProvider,
  type StructuredProviderOptions,
} from './structured-provider.js';
export {
  type ExitInfo,
  InputClosedError,
  SpawnError,
  StartupError,
  SupervisedProcess,
} from './supervised-process.js';
export { TurnTracker } from './turn-tracker.js';

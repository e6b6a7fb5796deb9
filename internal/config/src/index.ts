export {
  ACP_ARGS_BY_BINARY,
  BUILTIN_ADAPTERS,
  DEFAULT_ADAPTER_BY_ID,
  DEFAULTS,
} from './defaults.js';
export { parseByteSize, parseDuration } from './duration.js';
export { ConfigError, compileRedactPattern, loadConfig, parseConfig } from './load-config.js';
export type { ConfigProblem } from './private/node-reader.js';
export type { BridgeConfig, LogLevel, ProviderConfig } from './types.js';

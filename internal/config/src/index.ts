export { ConfigError } from './config-error.js';
export { parseByteSize, parseDuration } from './duration.js';
export {
  compileRedactPattern,
  type LoadedConfig,
  loadConfig,
  parseConfig,
} from './load-config.js';
export type { ConfigProblem } from './private/node-reader.js';
export type {
  BridgeConfig,
  FleetConfig,
  LogLevel,
  ProviderConfig,
  RateLimit,
} from './types.js';

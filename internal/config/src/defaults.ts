/** Defaults for every optional key; documented key by key in bridge.yaml. */
export const DEFAULTS = {
  listen: '127.0.0.1:9445',
  maxConnectionAge: '30m',
  jwtAudience: 'bridge',
  jwtMaxTtl: '5m',
  clockSkew: '30s',
  maxPerProject: 5,
  maxGlobal: 20,
  idleTimeout: '30m',
  stopGracePeriod: '10s',
  eventBufferSize: 10_000,
  eventBufferBytes: 8 * 1024 * 1024,
  retention: '10m',
  maxSubscribers: 64,
  subscriberTtl: '1h',
  maxInputBytes: 65_536,
  startupTimeout: '30s',
  turnTimeout: '10m',
  healthTtl: '60s',
  logLevel: 'info',
  logFormat: 'json',
} as const;

/** Adapters built into the daemon. */
export const BUILTIN_ADAPTERS = ['stdio', 'mock', 'claude', 'codex', 'acp'] as const;

/** The adapter a provider id gets when `adapter` is not set; any other id gets "stdio". */
export const DEFAULT_ADAPTER_BY_ID: Readonly<Record<string, string>> = {
  mock: 'mock',
  stdio: 'stdio',
  claude: 'claude',
  codex: 'codex',
  opencode: 'acp',
  gemini: 'acp',
};

/** Arguments that make a known binary speak ACP, used when an acp provider sets no `args`. */
export const ACP_ARGS_BY_BINARY: Readonly<Record<string, readonly string[]>> = {
  opencode: ['acp'],
  gemini: ['--acp'],
};

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
  logLevel: 'info',
  logFormat: 'json',
} as const;

/** Adapters built into the daemon; any other provider id defaults to "stdio". */
export const BUILTIN_ADAPTERS = ['stdio', 'mock'] as const;

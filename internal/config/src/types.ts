/** The validated daemon configuration. Durations are milliseconds, sizes bytes. */
export interface BridgeConfig {
  server: {
    /** host:port; the daemon only ever listens with TLS. */
    listen: string;
    /** Clients re-handshake after this long, so CRL and trust changes reach live connections. 0 = never. */
    maxConnectionAgeMs: number;
  };
  tls: {
    caBundle: string;
    cert: string;
    key: string;
    /** CRL files (PEM); when set, one is needed for every CA in the bundle. */
    crl: string[];
  };
  auth: {
    jwtPublicKeys: { issuer: string; keyPath: string }[];
    jwtAudience: string;
    jwtMaxTtlMs: number;
    clockSkewMs: number;
  };
  sessions: {
    maxPerProject: number;
    maxGlobal: number;
    idleTimeoutMs: number;
    stopGracePeriodMs: number;
    eventBufferSize: number;
    eventBufferBytes: number;
    retentionMs: number;
    maxSubscribers: number;
    subscriberTtlMs: number;
  };
  input: { maxSizeBytes: number };
  providers: Record<string, ProviderConfig>;
  allowedPaths: string[];
  logging: { level: LogLevel; format: 'json' | 'pretty'; redactPatterns: string[] };
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/**
 * One entry of `providers`. `adapter`, `binary` and `args` are undefined when
 * not written: their defaults depend on the adapters this build has, which
 * only the provider registry knows.
 */
export interface ProviderConfig {
  /** Which adapter drives this provider, by name. */
  adapter: string | undefined;
  /** Executable name (looked up on PATH) or absolute path. */
  binary: string | undefined;
  /** Extra argv for the agent. */
  args: string[] | undefined;
  startupTimeoutMs: number;
  /**
   * A regular expression a stdout line must match before the agent counts as
   * started; empty means "started once spawned". Bounded by startupTimeoutMs.
   */
  readyPattern: string;
  /** Extra environment for the child, on top of the filtered base environment. */
  env: Record<string, string>;
  /** A turn running longer than this ends with AGENT_ERROR (and an interrupt). */
  turnTimeoutMs: number;
  /** Also keep every raw protocol line as a STDOUT event. */
  emitRaw: boolean;
  /** How tool permission / approval requests from the agent are answered. */
  permissions: 'deny' | 'allow';
  /**
   * agent_opts a client may set and the values allowed for each ("*" = any
   * value of the option's syntax). Undefined: the adapter's safe defaults.
   */
  allowedOpts: Record<string, string[]> | undefined;
  /** Options applied when the client does not set them; the only place for dangerous modes. */
  defaultOpts: Record<string, string>;
  /** Give each session its own empty HOME (and CODEX_HOME, XDG dirs), removed afterwards. */
  isolateHome: boolean;
  /** How long health probes (version, auth) are cached. */
  healthTtlMs: number;
}

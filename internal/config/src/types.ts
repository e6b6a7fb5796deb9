/** The validated daemon configuration. Durations are milliseconds, sizes bytes. */
export interface BridgeConfig {
  server: {
    /** host:port; the daemon only ever listens with TLS. */
    listen: string;
    /** Clients re-handshake after this long, so CRL and trust changes reach live connections. 0 = never. */
    maxConnectionAgeMs: number;
    /** A connection that has not finished its TLS handshake after this long is closed. */
    handshakeTimeoutMs: number;
    /** A connection with no call for this long is closed (the client reconnects when it needs to). 0 = never. */
    maxConnectionIdleMs: number;
    /** Streams one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). */
    maxConcurrentStreams: number;
  };
  /** Prometheus metrics over HTTPS with mutual TLS (the tls section's files). */
  metrics: {
    /** host:port of the metrics listener; empty: no metrics listener. */
    listen: string;
  };
  tls: {
    caBundle: string;
    cert: string;
    key: string;
    /** CRL files (PEM); when set, one is needed for every CA in the bundle. */
    crl: string[];
  };
  auth: {
    jwtPublicKeys: {
      issuer: string;
      keyPath: string;
      /**
       * Client certificate identities (subject CN or URI SAN) allowed to
       * present this issuer's tokens; empty means any trusted certificate.
       */
      clientIdentities: string[];
    }[];
    jwtAudience: string;
    jwtMaxTtlMs: number;
    clockSkewMs: number;
    /** Tokens must carry `cnf.x5t#S256` naming the certificate they are presented over. */
    requireCertBinding: boolean;
  };
  /** Token buckets per caller identity (certificate and `sub`); 0 per minute disables one. */
  rateLimits: {
    startSession: RateLimit;
    sendInput: RateLimit;
    /** Failed authentications per client certificate; once spent, its calls are refused unchecked. */
    failedAuth: RateLimit;
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
    /**
     * Where the daemon records its agents' process groups, so that a daemon
     * started after a crash can end what was left running. Empty: the
     * daemon's default ($XDG_RUNTIME_DIR/agent-bridge, else a directory of
     * this user under the temp directory).
     */
    stateDir: string;
  };
  /** Where sessions, their events and their cursors are kept. */
  storage: {
    /** `embedded`: on disk, kept across restarts (the default); `memory`: lost at every restart. */
    backend: 'embedded' | 'memory';
    /**
     * The embedded store's directory. Empty: the daemon's default
     * ($XDG_STATE_HOME/agent-bridge/store, else ~/.local/state/agent-bridge/store).
     */
    path: string;
    /** Each commit waits for the disk, so a host crash loses no acknowledged event. */
    sync: boolean;
    /** The most the embedded store's data may take: at it, new sessions are refused (store_full). */
    maxSizeBytes: number;
  };
  /** The fleet this daemon is part of (NATS JetStream); absent: a daemon on its own. */
  fleet: FleetConfig | undefined;
  input: { maxSizeBytes: number };
  providers: Record<string, ProviderConfig>;
  allowedPaths: string[];
  logging: {
    level: LogLevel;
    format: 'json' | 'pretty';
    redactPatterns: string[];
    /** JSON-lines audit file; empty: audit records go to the daemon log. */
    auditPath: string;
    /**
     * Refused handshakes audited per peer address and minute; further ones
     * are counted into one summary record, so a flood cannot fill the disk.
     */
    auditRefusedHandshakesPerPeer: number;
  };
}

/** A token bucket: refills `perMinute` tokens a minute, holds at most `burst`. */
export interface RateLimit {
  perMinute: number;
  burst: number;
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
  /**
   * How the agent's requests to use a tool are decided: by this policy
   * (allow, deny) or by a client's RespondPermission (ask).
   */
  permissions: 'deny' | 'allow' | 'ask';
  /** With `ask`: how long a request waits for an answer. */
  permissionTimeoutMs: number;
  /** The answer nobody gave: on timeout, stop, shutdown or agent exit (an interrupted turn's requests are denied). */
  permissionDefault: 'deny' | 'allow';
  /** Tool names (`*` = any run of characters) answered allow without asking, whatever `permissions` says. */
  autoAllow: string[];
  /**
   * agent_opts a client may set and the values allowed for each ("*" = any
   * value of the option's syntax). Undefined: the adapter's safe defaults.
   */
  allowedOpts: Record<string, string[]> | undefined;
  /** Options applied when the client does not set them; the only place for dangerous modes. */
  defaultOpts: Record<string, string>;
  /** Give each session its own empty HOME (and CODEX_HOME, XDG dirs), removed afterwards. */
  isolateHome: boolean;
  /**
   * A session whose agent was running when the daemon went down: `auto`
   * takes up the agent's own conversation again at the next start (for
   * adapters that can), `never` ends it failed (`daemon_restarted`).
   */
  resume: 'auto' | 'never';
  /**
   * Whether the provider's agents get the bridge's collaboration tools (an
   * MCP server per session; adapters with MCP only). Default: on.
   */
  collaboration: 'on' | 'off';
  /** How long an auth answer (and a failed `--version`) holds before a background re-check. */
  healthTtlMs: number;
  /** The budget of one background probe run; its process group is killed at it. */
  probeTimeoutMs: number;
}

/**
 * A daemon in a fleet (docs/operations.md, "Fleet"): its store replicated
 * to NATS JetStream, announced in the fleet's directory, serving the
 * history of the fleet's sessions whose daemon is gone.
 */
export interface FleetConfig {
  /** The fleet's name: its stream, buckets and subjects (`bridge.<name>.…`). */
  name: string;
  /** This daemon's id in the fleet; a restarted daemon keeps it. Empty: the host name. */
  daemonId: string;
  /** host:port where clients reach this daemon's gRPC listener. */
  advertise: string;
  nats: {
    /** `tls://host:port` of the cluster's servers. */
    servers: string[];
    /** The CA that signed the servers' certificates; this daemon's client certificate and key. */
    caBundle: string;
    cert: string;
    key: string;
  };
  /** Copies JetStream keeps (1, or 3 on a 3-node cluster). */
  replicas: number;
  /** How long the directory keeps a daemon that stopped renewing. */
  announceTtlMs: number;
  /** How long the fleet keeps a session's events and record. */
  retentionMs: number;
}

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError } from './config-error.js';
import { checkFleet, fleetSection } from './private/fleet-table.js';
import { type ConfigProblem, NodeReader } from './private/node-reader.js';
import {
  bool,
  byteSize,
  compiles,
  duration,
  file,
  files,
  int,
  oneOf,
  openMap,
  optional,
  optionalFile,
  records,
  required,
  section,
  strings,
  type Table,
  text,
} from './private/schema.js';
import type { BridgeConfig, LogLevel, ProviderConfig, RateLimit } from './types.js';

/** A valid config, still able to point into the file it came from. */
export interface LoadedConfig {
  readonly config: BridgeConfig;
  /**
   * A ConfigError for problems only the users of a value can see (which
   * adapters exist is the provider registry's knowledge, not config's),
   * located in the file like the loader's own problems.
   */
  reject(
    problems: readonly { path: string; message: string }[],
    options?: ErrorOptions,
  ): ConfigError;
}

// Defaults are documented key by key in the repository's bridge.yaml; keep the two in step.

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROVIDER_ID = /^[a-z][a-z0-9_-]{0,31}$/;
const JS_REGEX = compiles((p) => new RegExp(p));

const SERVER: Table<BridgeConfig['server']> = {
  listen: [
    'listen',
    text('127.0.0.1:9445', (v) =>
      HOST_PORT.test(v) ? undefined : `must be host:port, got "${v}"`,
    ),
  ],
  maxConnectionAgeMs: ['max_connection_age', duration('30m')],
  handshakeTimeoutMs: ['handshake_timeout', duration('10s', 100)],
  maxConnectionIdleMs: ['max_connection_idle', duration('30m')],
  maxConcurrentStreams: ['max_concurrent_streams', int(1000, 1, 100_000)],
};

const METRICS: Table<BridgeConfig['metrics']> = {
  listen: [
    'listen',
    text('', (v) =>
      v === '' || HOST_PORT.test(v) ? undefined : `must be host:port or "" (off), got "${v}"`,
    ),
  ],
};

const TLS: Table<BridgeConfig['tls']> = {
  caBundle: ['ca_bundle', file()],
  cert: ['cert', file()],
  key: ['key', file()],
  crl: ['crl', files()],
};

const JWT_KEY: Table<BridgeConfig['auth']['jwtPublicKeys'][number]> = {
  issuer: ['issuer', text()],
  keyPath: ['key_path', file()],
  clientIdentities: ['client_identities', strings()],
};

const AUTH: Table<BridgeConfig['auth']> = {
  // No key, no caller could ever be authenticated: refuse rather than start useless.
  jwtPublicKeys: ['jwt_public_keys', records(JWT_KEY, { atLeastOne: true })],
  jwtAudience: ['jwt_audience', text('bridge')],
  jwtMaxTtlMs: ['jwt_max_ttl', duration('5m', 1000)],
  clockSkewMs: ['clock_skew', duration('30s')],
  requireCertBinding: ['require_cert_binding', bool(true)],
};

function rateLimit(perMinute: number, burst: number): Table<RateLimit> {
  return {
    perMinute: ['per_minute', int(perMinute, 0, 1_000_000)],
    burst: ['burst', int(burst, 1, 1_000_000)],
  };
}

const RATE_LIMITS: Table<BridgeConfig['rateLimits']> = {
  startSession: ['start_session', section(rateLimit(60, 20))],
  sendInput: ['send_input', section(rateLimit(1200, 100))],
  failedAuth: ['failed_auth', section(rateLimit(30, 10))],
};

const SESSIONS: Table<BridgeConfig['sessions']> = {
  maxPerProject: ['max_per_project', int(5, 1)],
  maxGlobal: ['max_global', int(20, 1)],
  idleTimeoutMs: ['idle_timeout', duration('30m')],
  stopGracePeriodMs: ['stop_grace_period', duration('10s')],
  eventBufferSize: ['event_buffer_size', int(10_000, 16, 10_000_000)],
  eventBufferBytes: ['event_buffer_bytes', byteSize(8 * 1024 * 1024, 64 * 1024)],
  retentionMs: ['retention', duration('10m')],
  maxSubscribers: ['max_subscribers', int(64, 1, 100_000)],
  subscriberTtlMs: ['subscriber_ttl', duration('1h', 1000)],
  stateDir: ['state_dir', optionalFile()],
};

const STORAGE: Table<BridgeConfig['storage']> = {
  backend: [
    'backend',
    oneOf('embedded', ['embedded', 'memory'] as const, '"embedded" or "memory"'),
  ],
  path: ['path', optionalFile()],
  sync: ['sync', bool(true)],
  maxSizeBytes: ['max_size', byteSize(4 * 1024 ** 3, 1024 * 1024)],
};

const INPUT: Table<BridgeConfig['input']> = {
  maxSizeBytes: ['max_size_bytes', byteSize(65_536, 1)],
};

/** An `auto_allow` entry: a tool name, `*` for any run of characters; not `*` alone (use `permissions: allow`). */
function toolPattern(p: string): string | undefined {
  if (p.trim() === '') return 'must not be empty';
  if (/^\*+$/.test(p)) return 'would allow every tool; write permissions: allow instead';
  return undefined;
}

const PROVIDER: Table<ProviderConfig> = {
  // Left unset when absent: the provider registry owns the adapters and their defaults.
  adapter: ['adapter', optional(text(''))],
  binary: ['binary', optional(text(''))],
  args: ['args', optional(strings())],
  startupTimeoutMs: ['startup_timeout', duration('30s', 1)],
  readyPattern: ['ready_pattern', text('', JS_REGEX)],
  env: [
    'env',
    openMap(text(''), (k) =>
      ENV_NAME.test(k) ? undefined : 'is not a valid environment variable name',
    ),
  ],
  turnTimeoutMs: ['turn_timeout', duration('10m', 1000)],
  emitRaw: ['emit_raw', bool(false)],
  permissions: [
    'permissions',
    oneOf('deny', ['deny', 'allow', 'ask'] as const, '"deny", "allow" or "ask"'),
  ],
  permissionTimeoutMs: ['permission_timeout', duration('5m', 1000)],
  permissionDefault: [
    'permission_default',
    oneOf('deny', ['deny', 'allow'] as const, '"deny" or "allow"'),
  ],
  autoAllow: ['auto_allow', strings(toolPattern)],
  allowedOpts: ['allowed_opts', optional(openMap(strings()))],
  defaultOpts: ['default_opts', openMap(text())],
  isolateHome: ['isolate_home', bool(false)],
  resume: ['resume', oneOf('auto', ['auto', 'never'] as const, '"auto" or "never"')],
  collaboration: ['collaboration', oneOf('on', ['on', 'off'] as const, '"on" or "off"')],
  healthTtlMs: ['health_ttl', duration('60s')],
  probeTimeoutMs: ['probe_timeout', duration('30s', 100)],
};

const LOG_LEVELS: readonly LogLevel[] = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
];

const LOGGING: Table<BridgeConfig['logging']> = {
  level: ['level', oneOf('info', LOG_LEVELS)],
  format: ['format', oneOf('json', ['json', 'pretty'] as const)],
  redactPatterns: ['redact_patterns', strings(compiles(compileRedactPattern))],
  auditPath: ['audit_path', optionalFile()],
  auditRefusedHandshakesPerPeer: ['audit_refused_handshakes_per_peer', int(20, 1, 100_000)],
};

const BRIDGE: Table<BridgeConfig> = {
  server: ['server', section(SERVER)],
  tls: ['tls', required(section(TLS), 'is required: the daemon never serves without TLS')],
  metrics: ['metrics', section(METRICS)],
  auth: ['auth', section(AUTH)],
  rateLimits: ['rate_limits', section(RATE_LIMITS)],
  sessions: ['sessions', section(SESSIONS)],
  storage: ['storage', section(STORAGE)],
  fleet: ['fleet', fleetSection],
  input: ['input', section(INPUT)],
  providers: [
    'providers',
    openMap(section(PROVIDER), (id) =>
      PROVIDER_ID.test(id)
        ? undefined
        : 'provider ids are lowercase letters, digits, "-" and "_" (max 32)',
    ),
  ],
  allowedPaths: [
    'allowed_paths',
    strings(
      // Relative entries would depend on the daemon's working directory.
      (a) => (isAbsolute(a) ? undefined : `must be an absolute path, got "${a}"`),
      (a) => (a.includes('**') ? '"**" is not supported: use one "*" per path segment' : undefined),
    ),
  ],
  logging: ['logging', section(LOGGING)],
};

/** Reads and validates a config file. Relative paths in it are resolved against its directory. */
export function loadConfig(file: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      file,
      [{ path: '(file)', line: undefined, message: (err as Error).message }],
      { cause: err },
    );
  }
  return parseConfig(text, { file, baseDir: dirname(resolve(file)) });
}

/** Validates config text. Throws ConfigError listing every problem, in file order. */
export function parseConfig(text: string, opts: { file?: string; baseDir: string }): LoadedConfig {
  const file = opts.file ?? '<config>';
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        path: '(syntax)',
        line: lines.linePos(e.pos[0]).line,
        message: e.message.split('\n')[0] ?? e.message,
      })),
    );
  }
  const r = new NodeReader(doc.contents, lines);
  const config = section(BRIDGE)({ r, baseDir: opts.baseDir }, doc.contents, '');
  const s = config.sessions;
  if (
    s.maxPerProject > s.maxGlobal &&
    !r.hasProblem('sessions.max_per_project') &&
    !r.hasProblem('sessions.max_global')
  ) {
    r.fail('sessions.max_per_project', undefined, 'must not exceed sessions.max_global');
  }
  if (
    config.metrics.listen !== '' &&
    config.metrics.listen === config.server.listen &&
    !config.server.listen.endsWith(':0')
  ) {
    r.fail(
      'metrics.listen',
      undefined,
      'must not be server.listen: metrics need a port of their own',
    );
  }
  checkFleet(config, r);
  if (r.problems.length > 0) throw new ConfigError(file, inFileOrder(r.problems));
  return {
    config,
    reject: (problems, options) => {
      const located = problems.map((p) => ({ ...p, line: r.lineAt(p.path) }));
      return new ConfigError(file, inFileOrder(located), options);
    },
  };
}

/** Problems as a reader meets them going down the file; those without a line last. */
function inFileOrder(problems: ConfigProblem[]): ConfigProblem[] {
  const at = (p: ConfigProblem) => p.line ?? Number.MAX_SAFE_INTEGER;
  return [...problems].sort((a, b) => at(a) - at(b));
}

/**
 * Compiles a redaction pattern. A leading "(?i)" (common in Go/PCRE configs)
 * becomes the JavaScript "i" flag.
 */
export function compileRedactPattern(pattern: string): RegExp {
  const ci = pattern.startsWith('(?i)');
  return new RegExp(ci ? pattern.slice(4) : pattern, ci ? 'gi' : 'g');
}

import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import {
  ACP_ARGS_BY_BINARY,
  BUILTIN_ADAPTERS,
  DEFAULT_ADAPTER_BY_ID,
  DEFAULTS,
} from './defaults.js';
import { type ConfigProblem, NodeReader } from './private/node-reader.js';
import type { BridgeConfig, LogLevel, ProviderConfig } from './types.js';

/** The config file is invalid; `problems` lists every mistake with its path and line. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ConfigProblem[],
  ) {
    super(
      `invalid config ${file}:\n${problems
        .map((p) => `  ${file}${p.line ? `:${p.line}` : ''}: ${p.path}: ${p.message}`)
        .join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
];
const PROVIDER_ID = /^[a-z][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads and validates a config file. Relative paths in it are resolved against its directory. */
export function loadConfig(file: string): BridgeConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [
      { path: '(file)', line: undefined, message: (err as Error).message },
    ]);
  }
  return parseConfig(text, { file, baseDir: dirname(resolve(file)) });
}

/** Validates config text. Throws ConfigError listing every problem. */
export function parseConfig(text: string, opts: { file?: string; baseDir: string }): BridgeConfig {
  const file = opts.file ?? '<config>';
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        path: '(syntax)',
        line: e.linePos?.[0]?.line,
        message: e.message.split('\n')[0] ?? e.message,
      })),
    );
  }
  const r = new NodeReader(lines);
  const p = (v: string | undefined) =>
    v === undefined ? '' : isAbsolute(v) ? v : resolve(opts.baseDir, v);

  const root = r.map(doc.contents, '', [
    'server',
    'tls',
    'auth',
    'sessions',
    'input',
    'providers',
    'allowed_paths',
    'logging',
  ]);
  const g = (m: Map<string, unknown> | undefined, k: string) => m?.get(k);

  const server = r.map(g(root, 'server'), 'server', ['listen', 'max_connection_age']);
  const listen = r.str(g(server, 'listen'), 'server.listen', DEFAULTS.listen);
  if (listen !== undefined && !/^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/.test(listen)) {
    r.fail('server.listen', g(server, 'listen'), `must be host:port, got "${listen}"`);
  }

  const tlsNode = g(root, 'tls');
  if (tlsNode === undefined) {
    r.fail('tls', doc.contents, 'is required: the daemon never serves without TLS');
  }
  const tls = r.map(tlsNode, 'tls', ['ca_bundle', 'cert', 'key', 'crl']);

  const auth = r.map(g(root, 'auth'), 'auth', [
    'jwt_public_keys',
    'jwt_audience',
    'jwt_max_ttl',
    'clock_skew',
  ]);
  const keysNode = g(auth, 'jwt_public_keys');
  const keyItems = r.seq(keysNode, 'auth.jwt_public_keys') ?? [];
  if (keyItems.length === 0) {
    r.fail('auth.jwt_public_keys', keysNode ?? auth, 'needs at least one {issuer, key_path}');
  }
  const jwtPublicKeys = keyItems.map((item, i) => {
    const path = `auth.jwt_public_keys[${i}]`;
    const m = r.map(item, path, ['issuer', 'key_path']);
    return {
      issuer: r.str(g(m, 'issuer'), `${path}.issuer`) ?? '',
      keyPath: p(r.str(g(m, 'key_path'), `${path}.key_path`)),
    };
  });

  const s = r.map(g(root, 'sessions'), 'sessions', [
    'max_per_project',
    'max_global',
    'idle_timeout',
    'stop_grace_period',
    'event_buffer_size',
    'event_buffer_bytes',
    'retention',
    'max_subscribers',
    'subscriber_ttl',
  ]);
  const input = r.map(g(root, 'input'), 'input', ['max_size_bytes']);
  const logging = r.map(g(root, 'logging'), 'logging', ['level', 'format', 'redact_patterns']);
  const redactPatterns = r.strList(g(logging, 'redact_patterns'), 'logging.redact_patterns') ?? [];
  redactPatterns.forEach((pattern, i) => {
    try {
      compileRedactPattern(pattern);
    } catch (err) {
      const node = (g(logging, 'redact_patterns') as { items?: unknown[] } | undefined)?.items?.[i];
      r.fail(
        `logging.redact_patterns[${i}]`,
        node,
        `invalid regular expression: ${(err as Error).message}`,
      );
    }
  });

  const providers: Record<string, ProviderConfig> = {};
  const provNode = g(root, 'providers');
  for (const [id, node] of r.openMap(provNode, 'providers') ?? []) {
    const path = `providers.${id}`;
    if (!PROVIDER_ID.test(id)) {
      r.fail(path, provNode, 'provider ids are lowercase letters, digits, "-" and "_" (max 32)');
      continue;
    }
    const m = r.map(node, path, [
      'adapter',
      'binary',
      'args',
      'startup_timeout',
      'ready_pattern',
      'env',
      'turn_timeout',
      'emit_raw',
      'permissions',
      'allowed_opts',
      'default_opts',
      'isolate_home',
      'health_ttl',
    ]);
    const defaultAdapter = DEFAULT_ADAPTER_BY_ID[id] ?? 'stdio';
    const adapter = r.str(g(m, 'adapter'), `${path}.adapter`, defaultAdapter) ?? defaultAdapter;
    const env: Record<string, string> = {};
    for (const [k, v] of r.openMap(g(m, 'env'), `${path}.env`) ?? []) {
      if (!ENV_NAME.test(k))
        r.fail(`${path}.env.${k}`, v, 'is not a valid environment variable name');
      const val = r.str(v, `${path}.env.${k}`, '');
      if (val !== undefined) env[k] = val;
    }
    if (!(BUILTIN_ADAPTERS as readonly string[]).includes(adapter)) {
      r.fail(
        `${path}.adapter`,
        g(m, 'adapter'),
        `unknown adapter "${adapter}" (known: ${BUILTIN_ADAPTERS.join(', ')})`,
      );
    }
    const binary = r.str(g(m, 'binary'), `${path}.binary`, adapter === 'mock' ? '' : id) ?? '';
    const permissions = r.str(g(m, 'permissions'), `${path}.permissions`, 'deny') ?? 'deny';
    if (permissions !== 'deny' && permissions !== 'allow') {
      r.fail(
        `${path}.permissions`,
        g(m, 'permissions'),
        `must be "deny" or "allow", got "${permissions}"`,
      );
    }
    let allowedOpts: Record<string, string[]> | undefined;
    const allowedNode = g(m, 'allowed_opts');
    if (allowedNode !== undefined && allowedNode !== null) {
      allowedOpts = {};
      for (const [k, v] of r.openMap(allowedNode, `${path}.allowed_opts`) ?? []) {
        allowedOpts[k] = r.strList(v, `${path}.allowed_opts.${k}`) ?? [];
      }
    }
    const defaultOpts: Record<string, string> = {};
    for (const [k, v] of r.openMap(g(m, 'default_opts'), `${path}.default_opts`) ?? []) {
      const val = r.str(v, `${path}.default_opts.${k}`);
      if (val !== undefined) defaultOpts[k] = val;
    }
    const argsNode = g(m, 'args');
    const acpDefault = ACP_ARGS_BY_BINARY[basename(binary)];
    const args =
      argsNode === undefined && adapter === 'acp' && acpDefault
        ? [...acpDefault]
        : (r.strList(argsNode, `${path}.args`) ?? []);
    const readyPattern = r.str(g(m, 'ready_pattern'), `${path}.ready_pattern`, '') ?? '';
    if (readyPattern) {
      try {
        new RegExp(readyPattern);
      } catch (err) {
        r.fail(
          `${path}.ready_pattern`,
          g(m, 'ready_pattern'),
          `invalid regular expression: ${(err as Error).message}`,
        );
      }
    }
    providers[id] = {
      adapter,
      binary,
      args,
      startupTimeoutMs:
        r.duration(
          g(m, 'startup_timeout'),
          `${path}.startup_timeout`,
          DEFAULTS.startupTimeout,
          1,
        ) ?? 0,
      readyPattern,
      env,
      turnTimeoutMs:
        r.duration(g(m, 'turn_timeout'), `${path}.turn_timeout`, DEFAULTS.turnTimeout, 1000) ?? 0,
      emitRaw: r.bool(g(m, 'emit_raw'), `${path}.emit_raw`, false) ?? false,
      permissions: permissions === 'allow' ? 'allow' : 'deny',
      allowedOpts,
      defaultOpts,
      isolateHome: r.bool(g(m, 'isolate_home'), `${path}.isolate_home`, false) ?? false,
      healthTtlMs: r.duration(g(m, 'health_ttl'), `${path}.health_ttl`, DEFAULTS.healthTtl, 0) ?? 0,
    };
  }

  const allowedNode = g(root, 'allowed_paths');
  const allowedPaths = r.strList(allowedNode, 'allowed_paths') ?? [];
  allowedPaths.forEach((a, i) => {
    const node = (allowedNode as { items?: unknown[] } | undefined)?.items?.[i];
    if (!isAbsolute(a)) r.fail(`allowed_paths[${i}]`, node, `must be an absolute path, got "${a}"`);
    if (a.includes('**'))
      r.fail(`allowed_paths[${i}]`, node, '"**" is not supported: use one "*" per path segment');
  });

  const config: BridgeConfig = {
    server: {
      listen: listen ?? DEFAULTS.listen,
      maxConnectionAgeMs:
        r.duration(
          g(server, 'max_connection_age'),
          'server.max_connection_age',
          DEFAULTS.maxConnectionAge,
        ) ?? 0,
    },
    tls: {
      caBundle: p(r.str(g(tls, 'ca_bundle'), 'tls.ca_bundle')),
      cert: p(r.str(g(tls, 'cert'), 'tls.cert')),
      key: p(r.str(g(tls, 'key'), 'tls.key')),
      crl: (r.strList(g(tls, 'crl'), 'tls.crl') ?? []).map((f) => p(f)),
    },
    auth: {
      jwtPublicKeys,
      jwtAudience: r.str(g(auth, 'jwt_audience'), 'auth.jwt_audience', DEFAULTS.jwtAudience) ?? '',
      jwtMaxTtlMs:
        r.duration(g(auth, 'jwt_max_ttl'), 'auth.jwt_max_ttl', DEFAULTS.jwtMaxTtl, 1000) ?? 0,
      clockSkewMs: r.duration(g(auth, 'clock_skew'), 'auth.clock_skew', DEFAULTS.clockSkew) ?? 0,
    },
    sessions: {
      maxPerProject:
        r.int(g(s, 'max_per_project'), 'sessions.max_per_project', DEFAULTS.maxPerProject, 1) ?? 0,
      maxGlobal: r.int(g(s, 'max_global'), 'sessions.max_global', DEFAULTS.maxGlobal, 1) ?? 0,
      idleTimeoutMs:
        r.duration(g(s, 'idle_timeout'), 'sessions.idle_timeout', DEFAULTS.idleTimeout) ?? 0,
      stopGracePeriodMs:
        r.duration(
          g(s, 'stop_grace_period'),
          'sessions.stop_grace_period',
          DEFAULTS.stopGracePeriod,
        ) ?? 0,
      eventBufferSize:
        r.int(
          g(s, 'event_buffer_size'),
          'sessions.event_buffer_size',
          DEFAULTS.eventBufferSize,
          16,
          10_000_000,
        ) ?? 0,
      eventBufferBytes:
        r.byteSize(
          g(s, 'event_buffer_bytes'),
          'sessions.event_buffer_bytes',
          DEFAULTS.eventBufferBytes,
          64 * 1024,
        ) ?? 0,
      retentionMs: r.duration(g(s, 'retention'), 'sessions.retention', DEFAULTS.retention) ?? 0,
      maxSubscribers:
        r.int(
          g(s, 'max_subscribers'),
          'sessions.max_subscribers',
          DEFAULTS.maxSubscribers,
          1,
          100_000,
        ) ?? 0,
      subscriberTtlMs:
        r.duration(
          g(s, 'subscriber_ttl'),
          'sessions.subscriber_ttl',
          DEFAULTS.subscriberTtl,
          1000,
        ) ?? 0,
    },
    input: {
      maxSizeBytes:
        r.byteSize(g(input, 'max_size_bytes'), 'input.max_size_bytes', DEFAULTS.maxInputBytes, 1) ??
        0,
    },
    providers,
    allowedPaths,
    logging: {
      level: r.oneOf(g(logging, 'level'), 'logging.level', DEFAULTS.logLevel, LOG_LEVELS) ?? 'info',
      format:
        r.oneOf(g(logging, 'format'), 'logging.format', DEFAULTS.logFormat, ['json', 'pretty']) ??
        'json',
      redactPatterns,
    },
  };
  if (config.sessions.maxGlobal > 0 && config.sessions.maxPerProject > config.sessions.maxGlobal) {
    r.fail(
      'sessions.max_per_project',
      g(s, 'max_per_project'),
      'must not exceed sessions.max_global',
    );
  }
  if (r.problems.length > 0) throw new ConfigError(file, r.problems);
  return config;
}

/**
 * Compiles a redaction pattern. A leading "(?i)" (common in Go/PCRE configs)
 * becomes the JavaScript "i" flag.
 */
export function compileRedactPattern(pattern: string): RegExp {
  const ci = pattern.startsWith('(?i)');
  return new RegExp(ci ? pattern.slice(4) : pattern, ci ? 'gi' : 'g');
}

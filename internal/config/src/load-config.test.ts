import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadConfig, parseConfig } from './load-config.js';

const MINIMAL = `
tls:
  ca_bundle: certs/ca.crt
  cert: certs/bridge.crt
  key: certs/bridge.key
auth:
  jwt_public_keys:
    - issuer: prd-manager
      key_path: keys/prd.pub
`;

function problems(text: string): string[] {
  try {
    parseConfig(text, { baseDir: '/etc/bridge', file: 'bridge.yaml' });
  } catch (err) {
    if (err instanceof ConfigError)
      return err.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('parseConfig', () => {
  it('metrics.listen: off by default, host:port when set, never the gRPC port', () => {
    const off = parseConfig(MINIMAL, { baseDir: '/etc/bridge' }).config;
    expect(off.metrics).toEqual({ listen: '' });
    const on = parseConfig(`${MINIMAL}metrics:\n  listen: "127.0.0.1:9446"\n`, { baseDir: '/' });
    expect(on.config.metrics.listen).toBe('127.0.0.1:9446');
    expect(problems(`${MINIMAL}metrics:\n  listen: "9446"\n`)).toEqual([
      '11: metrics.listen: must be host:port or "" (off), got "9446"',
    ]);
    expect(
      problems(
        `${MINIMAL}server:\n  listen: "127.0.0.1:9445"\nmetrics:\n  listen: "127.0.0.1:9445"\n`,
      ),
    ).toEqual(['13: metrics.listen: must not be server.listen: metrics need a port of their own']);
  });

  it('fills defaults and resolves relative paths against the config directory', () => {
    const c = parseConfig(MINIMAL, { baseDir: '/etc/bridge' }).config;
    expect(c.server.listen).toBe('127.0.0.1:9445');
    expect(c.tls).toEqual({
      caBundle: '/etc/bridge/certs/ca.crt',
      cert: '/etc/bridge/certs/bridge.crt',
      key: '/etc/bridge/certs/bridge.key',
      crl: [],
    });
    expect(c.auth).toEqual({
      jwtPublicKeys: [
        { issuer: 'prd-manager', keyPath: '/etc/bridge/keys/prd.pub', clientIdentities: [] },
      ],
      jwtAudience: 'bridge',
      jwtMaxTtlMs: 300_000,
      clockSkewMs: 30_000,
      requireCertBinding: true,
    });
    expect(c.server).toEqual({
      listen: '127.0.0.1:9445',
      maxConnectionAgeMs: 1_800_000,
      handshakeTimeoutMs: 10_000,
      maxConnectionIdleMs: 1_800_000,
      maxConcurrentStreams: 1000,
    });
    expect(c.rateLimits).toEqual({
      startSession: { perMinute: 60, burst: 20 },
      sendInput: { perMinute: 1200, burst: 100 },
      failedAuth: { perMinute: 30, burst: 10 },
    });
    expect(c.sessions).toEqual({
      maxPerProject: 5,
      maxGlobal: 20,
      idleTimeoutMs: 1_800_000,
      stopGracePeriodMs: 10_000,
      eventBufferSize: 10_000,
      eventBufferBytes: 8 * 1024 * 1024,
      retentionMs: 600_000,
      maxSubscribers: 64,
      subscriberTtlMs: 3_600_000,
      stateDir: '',
    });
    expect(c.input.maxSizeBytes).toBe(65_536);
    expect(c.logging).toEqual({
      level: 'info',
      format: 'json',
      redactPatterns: [],
      auditPath: '',
      auditRefusedHandshakesPerPeer: 20,
    });
    expect(c.providers).toEqual({});
    expect(c.allowedPaths).toEqual([]);
  });

  it('reads every key of the example', () => {
    const c = parseConfig(
      `${MINIMAL}
server:
  listen: "0.0.0.0:9555"
  max_connection_age: 1h
  handshake_timeout: 2s
  max_connection_idle: 0s
  max_concurrent_streams: 50
rate_limits:
  start_session: { per_minute: 6, burst: 2 }
  send_input: { per_minute: 0 }
sessions:
  max_per_project: 2
  max_global: 3
  idle_timeout: 90s
  stop_grace_period: 1500ms
  event_buffer_size: 500
  event_buffer_bytes: 1MiB
  retention: 1m
  max_subscribers: 4
  subscriber_ttl: 2m
  state_dir: run/bridge
input:
  max_size_bytes: 1024
providers:
  codex:
    adapter: stdio
    binary: /usr/local/bin/codex
    args: ["--quiet"]
    startup_timeout: 5s
    env:
      OPENAI_BASE_URL: http://127.0.0.1:8080/v1
  claude:
    turn_timeout: 2m
    emit_raw: true
    permissions: allow
    allowed_opts:
      model: ["*"]
      permission_mode: [default, plan]
    default_opts:
      permission_mode: acceptEdits
    isolate_home: true
    health_ttl: 5s
    probe_timeout: 2s
  gemini: {}
  mock: {}
allowed_paths: ["/home/*/repos", "/opt/projects"]
logging:
  level: debug
  format: pretty
  redact_patterns: ["(?i)token\\\\s*=\\\\s*\\\\S+"]
  audit_path: audit/bridge-audit.jsonl
`,
      { baseDir: '/x' },
    ).config;
    expect(c.server).toEqual({
      listen: '0.0.0.0:9555',
      maxConnectionAgeMs: 3_600_000,
      handshakeTimeoutMs: 2000,
      maxConnectionIdleMs: 0,
      maxConcurrentStreams: 50,
    });
    expect(c.rateLimits).toEqual({
      startSession: { perMinute: 6, burst: 2 },
      sendInput: { perMinute: 0, burst: 100 },
      failedAuth: { perMinute: 30, burst: 10 },
    });
    expect(c.logging.auditPath).toBe('/x/audit/bridge-audit.jsonl');
    expect(c.sessions.stopGracePeriodMs).toBe(1500);
    expect(c.sessions.stateDir).toBe('/x/run/bridge');
    expect(c.sessions.eventBufferBytes).toBe(1024 * 1024);
    expect(c.input.maxSizeBytes).toBe(1024);
    expect(c.providers.codex).toEqual({
      adapter: 'stdio',
      binary: '/usr/local/bin/codex',
      args: ['--quiet'],
      startupTimeoutMs: 5000,
      readyPattern: '',
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1' },
      turnTimeoutMs: 600_000,
      emitRaw: false,
      permissions: 'deny',
      permissionTimeoutMs: 300_000,
      permissionDefault: 'deny',
      autoAllow: [],
      allowedOpts: undefined,
      defaultOpts: {},
      isolateHome: false,
      resume: 'auto',
      collaboration: 'on',
      healthTtlMs: 60_000,
      probeTimeoutMs: 30_000,
    });
    expect(c.providers.claude).toMatchObject({
      turnTimeoutMs: 120_000,
      emitRaw: true,
      permissions: 'allow',
      allowedOpts: { model: ['*'], permission_mode: ['default', 'plan'] },
      defaultOpts: { permission_mode: 'acceptEdits' },
      isolateHome: true,
      resume: 'auto',
      healthTtlMs: 5000,
      probeTimeoutMs: 2000,
    });
    expect(c.allowedPaths).toEqual(['/home/*/repos', '/opt/projects']);
    expect(c.logging.level).toBe('debug');
    expect(c.logging.redactPatterns).toHaveLength(1);
  });

  it("leaves adapter, binary and args unset when not written: their defaults are the registry's", () => {
    const c = parseConfig(
      `${MINIMAL}\nproviders:\n  gemini: {}\n  mock: {}\n  x:\n    adapter: nope\n`,
      {
        baseDir: '/x',
      },
    ).config;
    for (const id of ['gemini', 'mock']) {
      expect(c.providers[id]).toMatchObject({
        adapter: undefined,
        binary: undefined,
        args: undefined,
      });
    }
    // Which adapters exist is not config's to know.
    expect(c.providers.x?.adapter).toBe('nope');
  });

  it('rejects a bad permissions value and a non-boolean flag with their lines', () => {
    expect(
      problems(`${MINIMAL}\nproviders:\n  x:\n    permissions: maybe\n    emit_raw: "yes"\n`),
    ).toEqual([
      '13: providers.x.permissions: must be "deny", "allow" or "ask", got "maybe"',
      '14: providers.x.emit_raw: must be true or false, got string "yes"',
    ]);
  });

  it('reads the approval gate settings, and refuses an auto_allow that would allow everything', () => {
    const c = parseConfig(
      `${MINIMAL}\nproviders:\n  claude:\n    permissions: ask\n    permission_timeout: 90s\n    permission_default: allow\n    auto_allow: [Read, "mcp__docs__*"]\n  codex: {}\n`,
      { baseDir: '/x' },
    ).config;
    expect(c.providers.claude).toMatchObject({
      permissions: 'ask',
      permissionTimeoutMs: 90_000,
      permissionDefault: 'allow',
      autoAllow: ['Read', 'mcp__docs__*'],
    });
    expect(c.providers.codex).toMatchObject({
      permissions: 'deny',
      permissionTimeoutMs: 300_000,
      permissionDefault: 'deny',
      autoAllow: [],
    });
    expect(
      problems(
        `${MINIMAL}\nproviders:\n  x:\n    auto_allow: ["*", ""]\n    permission_default: ask\n    permission_timeout: 10ms\n    collaboration: maybe\n`,
      ),
    ).toEqual([
      '13: providers.x.auto_allow[0]: would allow every tool; write permissions: allow instead',
      '13: providers.x.auto_allow[1]: must not be empty',
      '14: providers.x.permission_default: must be "deny" or "allow", got "ask"',
      '15: providers.x.permission_timeout: must be at least 1000ms, got "10ms"',
      '16: providers.x.collaboration: must be "on" or "off", got "maybe"',
    ]);
  });

  it('rejects unknown keys with their path and line, listing the keys the section reads', () => {
    expect(problems(`${MINIMAL}\nsessions:\n  max_per_projet: 3\n`)).toEqual([
      '12: sessions.max_per_projet: unknown key (known keys: max_per_project, max_global, idle_timeout, stop_grace_period, event_buffer_size, event_buffer_bytes, retention, max_subscribers, subscriber_ttl, state_dir)',
    ]);
    expect(problems(`${MINIMAL}\nservr: {}\n`)).toEqual([
      '11: servr: unknown key (known keys: server, tls, metrics, auth, rate_limits, sessions, storage, fleet, input, providers, allowed_paths, logging)',
    ]);
    expect(problems(`${MINIMAL}\nproviders:\n  x:\n    binry: y\n`)).toEqual([
      '13: providers.x.binry: unknown key (known keys: adapter, binary, args, startup_timeout, ready_pattern, env, turn_timeout, emit_raw, permissions, permission_timeout, permission_default, auto_allow, allowed_opts, default_opts, isolate_home, resume, collaboration, health_ttl, probe_timeout)',
    ]);
    expect(
      problems(MINIMAL.replace('key_path: keys/prd.pub', 'key_path: keys/prd.pub\n      kid: c')),
    ).toEqual([
      '10: auth.jwt_public_keys[0].kid: unknown key (known keys: issuer, key_path, client_identities)',
    ]);
  });

  it('reads a fleet section, with its defaults, and refuses one it cannot use', () => {
    const fleet = (body: string) => `${MINIMAL}\nfleet:\n${body}`;
    const nats =
      '  nats:\n    servers: [tls://n1:4222, tls://n2:4222]\n    ca_bundle: nats/ca.crt\n    cert: nats/a.crt\n    key: nats/a.key\n';
    expect(parseConfig(MINIMAL, { baseDir: '/etc/bridge' }).config.fleet).toBeUndefined();
    expect(
      parseConfig(fleet(`  name: prod\n  advertise: host-a:9445\n${nats}`), {
        baseDir: '/etc/bridge',
      }).config.fleet,
    ).toEqual({
      name: 'prod',
      daemonId: '',
      advertise: 'host-a:9445',
      nats: {
        servers: ['tls://n1:4222', 'tls://n2:4222'],
        caBundle: '/etc/bridge/nats/ca.crt',
        cert: '/etc/bridge/nats/a.crt',
        key: '/etc/bridge/nats/a.key',
      },
      replicas: 1,
      announceTtlMs: 15_000,
      retentionMs: 168 * 3600_000,
    });
    expect(
      problems(
        fleet(
          '  name: prod.eu\n  daemon_id: a b\n  advertise: host-a\n  replicas: 7\n  nats:\n    servers: [nats://n1:4222]\n',
        ),
      ),
    ).toEqual([
      '12: fleet.name: must be 1 to 64 of A-Z a-z 0-9 _ -',
      '13: fleet.daemon_id: must be 1 to 64 of A-Z a-z 0-9 _ -',
      '14: fleet.advertise: must be host:port, got "host-a"',
      '15: fleet.replicas: must be between 1 and 5, got 7',
      '16: fleet.nats.ca_bundle: is required',
      '16: fleet.nats.cert: is required',
      '16: fleet.nats.key: is required',
      '17: fleet.nats.servers[0]: must be a tls:// address (mutual TLS only), got "nats://n1:4222"',
    ]);
    expect(
      problems(
        `${fleet(`  name: prod\n  advertise: host-a:9445\n${nats}`)}storage:\n  backend: memory\n`,
      ),
    ).toEqual([expect.stringMatching(/fleet: needs storage.backend: embedded/)]);
  });

  it('keeps sessions in the embedded store unless told otherwise', () => {
    const parse = (extra: string) =>
      parseConfig(`${MINIMAL}${extra}`, { baseDir: '/etc/bridge' }).config.storage;
    const GiB4 = 4 * 1024 ** 3;
    expect(parse('')).toEqual({ backend: 'embedded', path: '', sync: true, maxSizeBytes: GiB4 });
    expect(parse('\nstorage:\n  backend: memory\n')).toEqual({
      backend: 'memory',
      path: '',
      sync: true,
      maxSizeBytes: GiB4,
    });
    expect(parse('\nstorage:\n  path: var/store\n  sync: false\n  max_size: 512MiB\n')).toEqual({
      backend: 'embedded',
      path: '/etc/bridge/var/store',
      sync: false,
      maxSizeBytes: 512 * 1024 ** 2,
    });
    expect(
      problems(
        `${MINIMAL}\nstorage:\n  backend: disk\n  sync: sometimes\n  size: 1GiB\n  max_size: 1KiB\n`,
      ),
    ).toEqual([
      '12: storage.backend: must be "embedded" or "memory", got "disk"',
      '13: storage.sync: must be true or false, got string "sometimes"',
      '14: storage.size: unknown key (known keys: backend, path, sync, max_size)',
      expect.stringMatching(/^15: storage\.max_size: /),
    ]);
  });

  it('rejects wrong types and bad durations, reporting every problem at once', () => {
    const p = problems(
      `${MINIMAL}\nsessions:\n  max_global: "20"\n  idle_timeout: 30x\n  stop_grace_period: 10\ninput:\n  max_size_bytes: -1\n`,
    );
    expect(p).toEqual([
      '12: sessions.max_global: must be an integer, got string "20"',
      '13: sessions.idle_timeout: bad duration "30x" (use a number with a unit: ms, s, m, h, d)',
      '14: sessions.stop_grace_period: must be a duration string like "30s" or "10m", got number 10',
      '16: input.max_size_bytes: must be a byte count: an integer or a size like "8MiB"',
    ]);
  });

  it('enforces the bounds of each key', () => {
    expect(
      problems(
        `${MINIMAL.replace('auth:', 'auth:\n  jwt_max_ttl: 0s')}\nsessions:\n  event_buffer_size: 8\n  event_buffer_bytes: 1KiB\n  max_subscribers: 100001\n  subscriber_ttl: 10ms\nproviders:\n  x:\n    startup_timeout: 0s\n    turn_timeout: 999ms\n`,
      ),
    ).toEqual([
      '7: auth.jwt_max_ttl: must be at least 1000ms, got "0s"',
      '13: sessions.event_buffer_size: must be between 16 and 10000000, got 8',
      '14: sessions.event_buffer_bytes: must be at least 65536 bytes',
      '15: sessions.max_subscribers: must be between 1 and 100000, got 100001',
      '16: sessions.subscriber_ttl: must be at least 1000ms, got "10ms"',
      '19: providers.x.startup_timeout: must be at least 1ms, got "0s"',
      '20: providers.x.turn_timeout: must be at least 1000ms, got "999ms"',
    ]);
  });

  it('reports problems in file order, whatever order the sections are read in', () => {
    expect(
      problems(
        `logging:\n  level: loud\nserver:\n  listen: nowhere\n${MINIMAL}sessions:\n  retention: soon\n`,
      ),
    ).toEqual([
      '2: logging.level: must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
      '4: server.listen: must be host:port, got "nowhere"',
      '15: sessions.retention: bad duration "soon" (use a number with a unit: ms, s, m, h, d)',
    ]);
  });

  it('refuses a config without TLS', () => {
    expect(problems('auth:\n  jwt_public_keys: [{issuer: a, key_path: a.pub}]\n')).toEqual([
      '1: tls: is required: the daemon never serves without TLS',
      '1: tls.ca_bundle: is required',
      '1: tls.cert: is required',
      '1: tls.key: is required',
    ]);
    // A missing key is shown at the section it belongs in.
    expect(problems(MINIMAL.replace('  key: certs/bridge.key\n', ''))).toEqual([
      '2: tls.key: is required',
    ]);
    expect(problems(MINIMAL.replace('key: certs/bridge.key', 'key: ""'))).toEqual([
      '5: tls.key: must not be empty',
    ]);
  });

  it('requires at least one JWT issuer key, each with both fields', () => {
    expect(problems('tls: {ca_bundle: a, cert: b, key: c}\n')).toEqual([
      '1: auth.jwt_public_keys: needs at least one {issuer, key_path, client_identities}',
    ]);
    expect(
      problems('tls: {ca_bundle: a, cert: b, key: c}\nauth:\n  jwt_public_keys: []\n'),
    ).toEqual([
      '3: auth.jwt_public_keys: needs at least one {issuer, key_path, client_identities}',
    ]);
    expect(
      problems(
        'tls: {ca_bundle: a, cert: b, key: c}\nauth:\n  jwt_public_keys:\n    - issuer: a\n',
      ),
    ).toEqual(['4: auth.jwt_public_keys[0].key_path: is required']);
  });

  it('rejects duplicate keys, bad listen addresses, relative allowed paths and bad regexes', () => {
    expect(problems(`${MINIMAL}\nserver:\n  listen: a\n  listen: b\n`)[0]).toMatch(
      /^13: \(syntax\): Map keys must be unique/,
    );
    expect(problems(`${MINIMAL}\nserver:\n  listen: "9445"\n`)).toEqual([
      '12: server.listen: must be host:port, got "9445"',
    ]);
    expect(problems(`${MINIMAL}\nallowed_paths: ["/ok", "repos/**"]\n`)).toEqual([
      '11: allowed_paths[1]: must be an absolute path, got "repos/**"',
      '11: allowed_paths[1]: "**" is not supported: use one "*" per path segment',
    ]);
    expect(problems(`${MINIMAL}\nlogging:\n  redact_patterns: ["ok", "(unclosed"]\n`)).toEqual([
      '12: logging.redact_patterns[1]: invalid regular expression: Invalid regular expression: /(unclosed/g: Unterminated group',
    ]);
    expect(problems(`${MINIMAL}\nproviders:\n  x:\n    ready_pattern: "[a-"\n`)).toEqual([
      '13: providers.x.ready_pattern: invalid regular expression: Invalid regular expression: /[a-/: Unterminated character class',
    ]);
  });

  it('rejects bad provider ids, environment names and option maps', () => {
    expect(
      problems(
        `${MINIMAL}\nproviders:\n  Bad: {}\n  x:\n    env:\n      1NO: v\n      OK: 3\n    args: "--flag"\n    default_opts:\n      model: ""\n    allowed_opts: [model]\n`,
      ),
    ).toEqual([
      '12: providers.Bad: provider ids are lowercase letters, digits, "-" and "_" (max 32)',
      '15: providers.x.env.1NO: is not a valid environment variable name',
      '16: providers.x.env.OK: must be a string, got number 3',
      '17: providers.x.args: must be a list of strings',
      '19: providers.x.default_opts.model: must not be empty',
      '20: providers.x.allowed_opts: must be a mapping',
    ]);
  });

  it('rejects a per-project limit above the global one', () => {
    expect(problems(`${MINIMAL}\nsessions:\n  max_per_project: 9\n  max_global: 3\n`)).toEqual([
      '12: sessions.max_per_project: must not exceed sessions.max_global',
    ]);
    // Against the default global limit (20), shown at the section.
    expect(problems(`${MINIMAL}\nsessions:\n  max_per_project: 21\n`)).toEqual([
      '12: sessions.max_per_project: must not exceed sessions.max_global',
    ]);
    // Not compared with a value that is itself wrong.
    expect(problems(`${MINIMAL}\nsessions:\n  max_per_project: 30\n  max_global: many\n`)).toEqual([
      '13: sessions.max_global: must be an integer, got string "many"',
    ]);
  });

  it('locates problems found after loading, by whoever uses a value', () => {
    const loaded = parseConfig(`${MINIMAL}\nproviders:\n  x:\n    adapter: nope\n`, {
      baseDir: '/x',
      file: 'bridge.yaml',
    });
    const err = loaded.reject([
      { path: 'providers.x.adapter', message: 'unknown adapter "nope"' },
      // A path not written in the file points at its nearest written ancestor.
      { path: 'providers.x.allowed_opts.model', message: 'is not allowed' },
    ]);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(
      'invalid config bridge.yaml:\n  bridge.yaml:12: providers.x.allowed_opts.model: is not allowed\n  bridge.yaml:13: providers.x.adapter: unknown adapter "nope"',
    );
  });

  it('reports a file it cannot read', () => {
    expect(() => loadConfig('/nonexistent/bridge.yaml')).toThrow(
      /invalid config \/nonexistent\/bridge\.yaml:\n {2}\/nonexistent\/bridge\.yaml: \(file\): ENOENT/,
    );
  });

  it('keeps what it could not read as the cause', () => {
    const err = (() => {
      try {
        loadConfig('/nonexistent/bridge.yaml');
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('loadConfig accepted a missing file');
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.cause).toMatchObject({ code: 'ENOENT' });
  });
});

describe('the documented example bridge.yaml', () => {
  it('is a valid config with every section present', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(new URL('../../../bridge.yaml', import.meta.url), 'utf8');
    const c = parseConfig(text, { baseDir: '/etc/bridge' }).config;
    expect(Object.keys(c.providers)).toEqual([
      'mock',
      'mock_ask',
      'claude',
      'codex',
      'opencode',
      'gemini',
    ]);
    // The claude entry documents every provider key.
    const doc = text.slice(text.indexOf('  claude:'), text.indexOf('  codex:'));
    for (const key of [
      'adapter',
      'binary',
      'args',
      'startup_timeout',
      'turn_timeout',
      'emit_raw',
      'permissions',
      'allowed_opts',
      'default_opts',
      'isolate_home',
      'health_ttl',
      'probe_timeout',
      'ready_pattern',
      'resume',
      'collaboration',
      'env',
    ]) {
      expect(doc).toMatch(new RegExp(`\\n\\s+#? ?${key}:`));
    }
    expect(c.auth.jwtPublicKeys).toHaveLength(2);
    expect(c.allowedPaths).toEqual(['/home/*/repos', '/opt/projects']);
    for (const section of [
      'server',
      'tls',
      'auth',
      'rate_limits',
      'sessions',
      'storage',
      'input',
      'providers',
      'allowed_paths',
      'logging',
    ]) {
      expect(text).toMatch(new RegExp(`^${section}:`, 'm'));
    }
  });
});

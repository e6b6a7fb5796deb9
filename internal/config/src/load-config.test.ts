import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config.js';

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
  it('fills defaults and resolves relative paths against the config directory', () => {
    const c = parseConfig(MINIMAL, { baseDir: '/etc/bridge' });
    expect(c.server.listen).toBe('127.0.0.1:9445');
    expect(c.tls).toEqual({
      caBundle: '/etc/bridge/certs/ca.crt',
      cert: '/etc/bridge/certs/bridge.crt',
      key: '/etc/bridge/certs/bridge.key',
      crl: [],
    });
    expect(c.auth).toEqual({
      jwtPublicKeys: [{ issuer: 'prd-manager', keyPath: '/etc/bridge/keys/prd.pub' }],
      jwtAudience: 'bridge',
      jwtMaxTtlMs: 300_000,
      clockSkewMs: 30_000,
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
    });
    expect(c.input.maxSizeBytes).toBe(65_536);
    expect(c.logging).toEqual({ level: 'info', format: 'json', redactPatterns: [] });
    expect(c.providers).toEqual({});
    expect(c.allowedPaths).toEqual([]);
  });

  it('reads every key of the example', () => {
    const c = parseConfig(
      `${MINIMAL}
server:
  listen: "0.0.0.0:9555"
  max_connection_age: 1h
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
  gemini: {}
  mock: {}
allowed_paths: ["/home/*/repos", "/opt/projects"]
logging:
  level: debug
  format: pretty
  redact_patterns: ["(?i)token\\\\s*=\\\\s*\\\\S+"]
`,
      { baseDir: '/x' },
    );
    expect(c.server).toEqual({ listen: '0.0.0.0:9555', maxConnectionAgeMs: 3_600_000 });
    expect(c.sessions.stopGracePeriodMs).toBe(1500);
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
      allowedOpts: undefined,
      defaultOpts: {},
      isolateHome: false,
      healthTtlMs: 60_000,
    });
    expect(c.providers.claude).toMatchObject({
      adapter: 'claude',
      binary: 'claude',
      args: [],
      turnTimeoutMs: 120_000,
      emitRaw: true,
      permissions: 'allow',
      allowedOpts: { model: ['*'], permission_mode: ['default', 'plan'] },
      defaultOpts: { permission_mode: 'acceptEdits' },
      isolateHome: true,
      healthTtlMs: 5000,
    });
    // ACP providers get the arguments that make their binary speak ACP.
    expect(c.providers.gemini).toMatchObject({ adapter: 'acp', binary: 'gemini', args: ['--acp'] });
    expect(c.providers.mock?.adapter).toBe('mock');
    expect(c.allowedPaths).toEqual(['/home/*/repos', '/opt/projects']);
    expect(c.logging.level).toBe('debug');
    expect(c.logging.redactPatterns).toHaveLength(1);
  });

  it('rejects an unknown adapter, a bad permissions value and a non-boolean flag', () => {
    expect(
      problems(
        `${MINIMAL}\nproviders:\n  x:\n    adapter: nope\n    permissions: maybe\n    emit_raw: "yes"\n`,
      ),
    ).toEqual([
      expect.stringMatching(
        /^13: providers\.x\.adapter: unknown adapter "nope" \(known: stdio, mock, claude, codex, acp\)/,
      ),
      expect.stringMatching(
        /^14: providers\.x\.permissions: must be "deny" or "allow", got "maybe"/,
      ),
      expect.stringMatching(/^15: providers\.x\.emit_raw: must be true or false, got string "yes"/),
    ]);
  });

  it('rejects unknown keys with their path and line', () => {
    expect(problems(`${MINIMAL}\nsessions:\n  max_per_projet: 3\n`)).toEqual([
      expect.stringMatching(/^12: sessions\.max_per_projet: unknown key/),
    ]);
  });

  it('rejects wrong types and bad durations, reporting every problem at once', () => {
    const p = problems(
      `${MINIMAL}\nsessions:\n  max_global: "20"\n  idle_timeout: 30x\n  stop_grace_period: 10\ninput:\n  max_size_bytes: -1\n`,
    );
    expect(p).toEqual([
      expect.stringMatching(/^12: sessions\.max_global: must be an integer, got string "20"/),
      expect.stringMatching(/^13: sessions\.idle_timeout: bad duration "30x"/),
      expect.stringMatching(/^14: sessions\.stop_grace_period: must be a duration string/),
      expect.stringMatching(/^16: input\.max_size_bytes: must be a byte count/),
    ]);
  });

  it('refuses a config without TLS', () => {
    expect(problems('auth:\n  jwt_public_keys: [{issuer: a, key_path: a.pub}]\n')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/tls: is required: the daemon never serves without TLS/),
      ]),
    );
    expect(problems(MINIMAL.replace('  key: certs/bridge.key\n', ''))).toEqual([
      expect.stringMatching(/tls\.key: is required/),
    ]);
  });

  it('requires at least one JWT issuer key', () => {
    expect(problems('tls: {ca_bundle: a, cert: b, key: c}\n')).toEqual([
      expect.stringMatching(/auth\.jwt_public_keys: needs at least one/),
    ]);
  });

  it('rejects duplicate keys, bad listen addresses, relative allowed paths and bad regexes', () => {
    expect(problems(`${MINIMAL}\nserver:\n  listen: a\n  listen: b\n`)[0]).toMatch(/unique/i);
    expect(problems(`${MINIMAL}\nserver:\n  listen: "9445"\n`)).toEqual([
      expect.stringMatching(/server\.listen: must be host:port/),
    ]);
    expect(problems(`${MINIMAL}\nallowed_paths: ["repos"]\n`)).toEqual([
      expect.stringMatching(/allowed_paths\[0\]: must be an absolute path/),
    ]);
    expect(problems(`${MINIMAL}\nlogging:\n  redact_patterns: ["(unclosed"]\n`)).toEqual([
      expect.stringMatching(/logging\.redact_patterns\[0\]: invalid regular expression/),
    ]);
  });

  it('rejects a per-project limit above the global one', () => {
    expect(problems(`${MINIMAL}\nsessions:\n  max_per_project: 9\n  max_global: 3\n`)).toEqual([
      expect.stringMatching(/sessions\.max_per_project: must not exceed sessions\.max_global/),
    ]);
  });
});

describe('the documented example bridge.yaml', () => {
  it('is a valid config with every section present', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(new URL('../../../bridge.yaml', import.meta.url), 'utf8');
    const c = parseConfig(text, { baseDir: '/etc/bridge' });
    expect(Object.keys(c.providers)).toEqual(['mock', 'claude', 'codex', 'opencode', 'gemini']);
    expect(c.providers.opencode).toMatchObject({ adapter: 'acp', args: ['acp'] });
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
      'ready_pattern',
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
      'sessions',
      'input',
      'providers',
      'allowed_paths',
      'logging',
    ]) {
      expect(text).toMatch(new RegExp(`^${section}:`, 'm'));
    }
  });
});

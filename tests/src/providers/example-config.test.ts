import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '@agent-bridge/config';
import { REPO_ROOT, testProviderHost } from '@agent-bridge/harness';
import {
  type AcpProvider,
  ClaudeProvider,
  CodexProvider,
  createProviders,
  MockProvider,
  ProviderConfigError,
  resolveProviderDefinition,
  StdioProvider,
} from '@agent-bridge/providers/host';
import { describe, expect, it } from 'vitest';

const host = testProviderHost({ parentEnv: { PATH: '/nonexistent' } });

describe('the example bridge.yaml', () => {
  it('builds every provider with the adapter and options policy it documents', () => {
    const { config } = parseConfig(readFileSync(join(REPO_ROOT, 'bridge.yaml'), 'utf8'), {
      baseDir: REPO_ROOT,
    });
    const providers = createProviders(config.providers, host);
    expect([...providers.keys()]).toEqual([
      'mock',
      'mock_ask',
      'claude',
      'codex',
      'opencode',
      'gemini',
    ]);
    expect(providers.get('mock')).toBeInstanceOf(MockProvider);
    expect(providers.get('mock_ask')).toBeInstanceOf(MockProvider);
    expect(config.providers.mock_ask).toMatchObject({
      permissions: 'ask',
      permissionTimeoutMs: 120_000,
    });
    expect(providers.get('claude')).toBeInstanceOf(ClaudeProvider);
    expect(providers.get('codex')).toBeInstanceOf(CodexProvider);
    expect((providers.get('opencode') as AcpProvider).flavour).toBe('opencode');
    expect((providers.get('gemini') as AcpProvider).flavour).toBe('gemini');
    const claude = providers.get('claude')!;
    expect(claude.validateOptions({ permission_mode: 'plan', model: 'claude-sonnet-4-5' })).toBe(
      undefined,
    );
    expect(claude.validateOptions({ permission_mode: 'bypassPermissions' })).toMatchObject({
      key: 'permission_mode',
      refused: 'value',
      rule: expect.stringMatching(/not allowed/),
    });
    expect(
      providers.get('codex')!.validateOptions({ sandbox: 'danger-full-access' })?.rule,
    ).toMatch(/not allowed/);
  });

  it('documents a fleet section that parses as written, once uncommented', () => {
    const text = readFileSync(join(REPO_ROOT, 'bridge.yaml'), 'utf8');
    const lines = text.split('\n');
    const from = lines.indexOf('# fleet:');
    expect(from).toBeGreaterThan(0);
    const block: string[] = [];
    for (const line of lines.slice(from)) {
      if (!line.startsWith('#')) break;
      block.push(line.replace(/^# ?/, ''));
    }
    const { config } = parseConfig(`${text}\n${block.join('\n')}\n`, { baseDir: REPO_ROOT });
    expect(config.fleet).toMatchObject({
      name: 'prod',
      daemonId: 'bridge-1',
      advertise: 'bridge-1.example.com:9445',
      replicas: 3,
      announceTtlMs: 15_000,
      retentionMs: 168 * 3600_000,
      nats: { servers: expect.arrayContaining(['tls://nats-1.example.com:4222']) },
    });
  });

  it('refuses, at start-up, a config that hands a dangerous mode to clients', () => {
    expect(() =>
      createProviders(
        {
          claude: {
            adapter: 'claude',
            binary: 'claude',
            args: [],
            env: {},
            allowedOpts: { permission_mode: ['bypassPermissions'] },
          },
        },
        host,
      ),
    ).toThrow(/providers\.claude\.allowed_opts\.permission_mode: "bypassPermissions" is dangerous/);
  });
});

describe('the provider registry', () => {
  const resolve = (id: string, def: Record<string, unknown> = {}) => {
    const { adapter, binary, args } = resolveProviderDefinition(id, { env: {}, ...def });
    return { adapter, binary, args };
  };

  it('fills in what a provider entry leaves out, from the provider id', () => {
    expect(resolve('mock')).toEqual({ adapter: 'mock', binary: '', args: [] });
    expect(resolve('claude')).toEqual({ adapter: 'claude', binary: 'claude', args: [] });
    expect(resolve('codex')).toEqual({ adapter: 'codex', binary: 'codex', args: [] });
    expect(resolve('opencode')).toEqual({ adapter: 'acp', binary: 'opencode', args: ['acp'] });
    expect(resolve('gemini')).toEqual({ adapter: 'acp', binary: 'gemini', args: ['--acp'] });
    expect(resolve('my-tool')).toEqual({ adapter: 'stdio', binary: 'my-tool', args: [] });
    expect(createProviders({ 'my-tool': { env: {} } }, host).get('my-tool')).toBeInstanceOf(
      StdioProvider,
    );
  });

  it('gives ACP arguments by the binary, and only when args are not written', () => {
    expect(resolve('pro', { adapter: 'acp', binary: '/opt/bin/gemini' }).args).toEqual(['--acp']);
    expect(resolve('gemini', { args: ['--experimental-acp'] }).args).toEqual([
      '--experimental-acp',
    ]);
    expect(resolve('gemini', { args: [] }).args).toEqual([]);
    expect(resolve('agent', { adapter: 'acp' }).args).toEqual([]);
    expect(resolve('opencode', { adapter: 'stdio' }).args).toEqual([]);
  });

  it('rejects every unknown adapter, naming the key path and the known adapters', () => {
    let err: unknown;
    try {
      createProviders(
        {
          x: { adapter: 'telepathy', env: {} },
          mock: { env: {} },
          // An adapter that would refuse its own options does not hide the unknown ones.
          claude: { env: {}, allowedOpts: { permission_mode: ['bypassPermissions'] } },
          y: { adapter: '', env: {} },
        },
        host,
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProviderConfigError);
    expect((err as ProviderConfigError).problems).toEqual([
      {
        path: 'providers.x.adapter',
        message: 'unknown adapter "telepathy" (known: stdio, mock, claude, codex, acp)',
      },
      {
        path: 'providers.y.adapter',
        message: 'unknown adapter "" (known: stdio, mock, claude, codex, acp)',
      },
    ]);
    expect(() => createProviders({ z: { adapter: 'toString', env: {} } }, host)).toThrow(
      'providers.z.adapter: unknown adapter "toString"',
    );
  });

  it('has its problems reported at their line in the config file', () => {
    const loaded = parseConfig(
      'tls: {ca_bundle: a, cert: b, key: c}\nauth:\n  jwt_public_keys: [{issuer: a, key_path: a.pub}]\nproviders:\n  mock: {}\n  x:\n    binary: /bin/x\n    adapter: telepathy\n',
      { baseDir: '/etc/bridge', file: 'bridge.yaml' },
    );
    let message = '';
    try {
      createProviders(loaded.config.providers, host);
    } catch (err) {
      message = loaded.reject((err as ProviderConfigError).problems).message;
    }
    expect(message).toBe(
      'invalid config bridge.yaml:\n  bridge.yaml:8: providers.x.adapter: unknown adapter "telepathy" (known: stdio, mock, claude, codex, acp)',
    );
  });
});

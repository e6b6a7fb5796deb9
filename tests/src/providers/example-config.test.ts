import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '@agent-bridge/config';
import { createProviders } from '@agent-bridge/providers';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/index.js';

describe('the example bridge.yaml', () => {
  it('builds every provider with the adapter and options policy it documents', () => {
    const config = parseConfig(readFileSync(join(REPO_ROOT, 'bridge.yaml'), 'utf8'), {
      baseDir: REPO_ROOT,
    });
    const providers = createProviders(config.providers, {
      parentEnv: { PATH: '/nonexistent' },
      tempRoot: '/nonexistent',
    });
    expect([...providers.keys()]).toEqual(['mock', 'claude', 'codex', 'opencode', 'gemini']);
    const claude = providers.get('claude')!;
    expect(claude.validateOptions({ permission_mode: 'plan', model: 'claude-sonnet-4-5' })).toBe(
      undefined,
    );
    expect(claude.validateOptions({ permission_mode: 'bypassPermissions' })).toMatch(/not allowed/);
    expect(providers.get('codex')!.validateOptions({ sandbox: 'danger-full-access' })).toMatch(
      /not allowed/,
    );
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
        { parentEnv: {}, tempRoot: '/nonexistent' },
      ),
    ).toThrow(/providers\.claude\.allowed_opts\.permission_mode: "bypassPermissions" is dangerous/);
  });
});

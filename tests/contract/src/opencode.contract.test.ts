import { join } from 'node:path';
import { ProviderAuthState } from '@agent-bridge/proto';
import { acpContract } from './acp-contract.js';
import { CLI_BIN } from './contract-harness.js';
import { FakeAnthropicApi } from './fake-apis/index.js';

// The real opencode 1.18.33 (`opencode acp`) through the daemon, its bundled
// @ai-sdk/anthropic provider pointed at a loopback Anthropic Messages fake
// by OPENCODE_CONFIG_CONTENT.

const api = new FakeAnthropicApi();

acpContract({
  id: 'opencode',
  version: '1.18.33',
  // No stored credentials (auth.json); the adapter cannot see into OPENCODE_CONFIG_CONTENT.
  authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNKNOWN,
  api,
  provider: (key, home, extra = {}) => ({
    binary: join(CLI_BIN, 'opencode'),
    env: {
      HOME: home,
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        provider: {
          fake: {
            npm: '@ai-sdk/anthropic',
            options: { baseURL: `${api.baseUrl}/v1`, apiKey: key },
            models: { m: {} },
          },
        },
        model: 'fake/m',
      }),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    },
    ...extra,
  }),
  textUsage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
});

import { join } from 'node:path';
import { ProviderAuthState } from '@agent-bridge/proto';
import { acpContract } from './acp-contract.js';
import { CLI_BIN, writeFile } from './contract-harness.js';
import { FakeGeminiApi } from './fake-apis/index.js';

// The real gemini-cli 0.61.0 (`gemini --acp`) through the daemon, pointed at
// a loopback Gemini API fake by GOOGLE_GEMINI_BASE_URL.

const api = new FakeGeminiApi();

acpContract({
  id: 'gemini',
  version: '0.61.0',
  authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
  api,
  provider: (key, home, extra = {}) => {
    // Without this, GOOGLE_GEMINI_BASE_URL selects "gateway" auth and gemini exits 41.
    writeFile(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
    );
    return {
      binary: join(CLI_BIN, 'gemini'),
      // -m skips the model router's extra non-streaming call.
      args: ['-m', 'gemini-2.5-flash', '--acp'],
      env: { HOME: home, GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: api.baseUrl },
      ...extra,
    };
  },
  textUsage: { input_tokens: 26, output_tokens: 12 },
});

import { join } from 'node:path';
import { ProviderAuthState } from '@agent-bridge/proto';
import { expect } from 'vitest';
import { acpContract } from './acp-contract.js';
import { CLI_BIN, ofType, show, T, writeFile } from './contract-harness.js';
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
  refused: ({ all, requests, message }) => {
    const why = show(all);
    // Gemini sends no tool_call_update for a rejected call (so no TOOL_RESULT):
    // it answers the model at once, in the same turn, with the call's error.
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT), why).toHaveLength(0);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, why).toMatchObject({
      stop_reason: 'end_turn',
    });
    const body = requests().at(-1)?.body as { contents?: { parts?: unknown[] }[] } | undefined;
    expect(body?.contents?.at(-1)?.parts, why).toEqual([
      {
        functionResponse: expect.objectContaining({
          name: 'run_shell_command',
          response: { error: 'Tool "run_shell_command" was canceled by the user.' },
        }),
      },
    ]);
    // An ACP answer is an option id: the bridge's reason has no way to the model.
    expect(JSON.stringify(requests().map((r) => r.body))).not.toContain(message);
  },
});

import { join } from 'node:path';
import { ProviderAuthState } from '@agent-bridge/proto';
import { expect } from 'vitest';
import { acpContract } from './acp-contract.js';
import { CLI_BIN, ofType, opencodeEnv, show, T, turnsDone } from './contract-harness.js';
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
    env: opencodeEnv(api.baseUrl, key, home),
    ...extra,
  }),
  textUsage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
  refused: async ({ all, requests, message, session }) => {
    const why = show(all);
    const rejected = 'The user rejected permission to use this specific tool call.';
    // opencode fails the call with its own words and ends the turn there: no
    // model request carries the result until the next input.
    const result = ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0];
    expect(result?.data, why).toMatchObject({ status: 'failed', is_error: true, output: rejected });
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, why).toMatchObject({
      stop_reason: 'end_turn',
    });
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE), why).toHaveLength(0);
    const toolResults = () =>
      requests().filter((r) => JSON.stringify(r.body).includes('"tool_result"'));
    expect(toolResults(), why).toHaveLength(0);
    await session.send('hello');
    const next = await session.events(turnsDone(2));
    const body = toolResults()[0]?.body as { messages?: { content?: unknown[] }[] } | undefined;
    expect(body?.messages?.at(-1)?.content?.[0], show(next)).toMatchObject({
      type: 'tool_result',
      tool_use_id: result?.data?.tool_call_id,
      content: rejected,
      is_error: true,
    });
    // An ACP answer is an option id: the bridge's reason has no way to the model.
    expect(JSON.stringify(requests().map((r) => r.body))).not.toContain(message);
  },
});

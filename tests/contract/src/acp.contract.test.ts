import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  contractDaemon,
  expectOneTurn,
  ofType,
  show,
  T,
  tempHome,
  turnsDone,
  writeFile,
} from './contract-harness.js';
import { FakeAnthropicApi, FakeGeminiApi } from './fake-apis/index.js';

// The ACP adapter against the real opencode 1.18.33 (`opencode acp`, with an
// @ai-sdk/anthropic provider pointed at a loopback Anthropic fake) and the
// real gemini-cli 0.61.0 (`gemini --acp`, GOOGLE_GEMINI_BASE_URL at a
// loopback Gemini fake), through the daemon.

const anthropic = new FakeAnthropicApi();
const gemini = new FakeGeminiApi();
const home = tempHome('acp');
let bridge: Awaited<ReturnType<typeof contractDaemon>>;

function opencodeEnv(key: string, name: string): Record<string, string> {
  return {
    HOME: join(home.home, name),
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: {
        fake: {
          npm: '@ai-sdk/anthropic',
          options: { baseURL: `${anthropic.baseUrl}/v1`, apiKey: key },
          models: { m: {} },
        },
      },
      model: 'fake/m',
    }),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  };
}

function geminiEnv(key: string, name: string): Record<string, string> {
  const dir = join(home.home, name);
  writeFile(
    join(dir, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  return { HOME: dir, GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: gemini.baseUrl };
}

beforeAll(async () => {
  await anthropic.start();
  await gemini.start();
  const oc = (env: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    adapter: 'acp',
    binary: join(CLI_BIN, 'opencode'),
    turn_timeout: '90s',
    startup_timeout: '60s',
    env,
    ...extra,
  });
  const gm = (env: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    adapter: 'acp',
    binary: join(CLI_BIN, 'gemini'),
    args: ['-m', 'gemini-2.5-flash', '--acp'],
    turn_timeout: '90s',
    startup_timeout: '60s',
    env,
    ...extra,
  });
  bridge = await contractDaemon({
    opencode: oc(opencodeEnv('sk-test', 'oc')),
    opencode_allow: oc(opencodeEnv('sk-test', 'oc-allow'), { permissions: 'allow' }),
    opencode_bad: oc(opencodeEnv('sk-bad', 'oc-bad')),
    gemini: gm(geminiEnv('key-test', 'gm')),
    gemini_allow: gm(geminiEnv('key-test', 'gm-allow'), { permissions: 'allow' }),
    gemini_bad: gm(geminiEnv('sk-bad', 'gm-bad')),
  });
});

afterAll(async () => {
  await bridge?.close();
  await anthropic.stop();
  await gemini.stop();
  home.cleanup();
});

const VERSIONS: Record<string, string> = { opencode: '1.18.33', gemini: '0.61.0' };

for (const id of ['opencode', 'gemini']) {
  describe(`${id} ${VERSIONS[id]} (ACP) through the daemon`, () => {
    it('ListProviders reports the real version', async () => {
      const { providers } = await bridge.providers();
      expect(providers.find((p) => p.id === id)).toMatchObject({
        available: true,
        version: VERSIONS[id],
      });
    });

    it('a text turn with deltas, then a second turn in the same session', async () => {
      const s = await bridge.start(id);
      await s.send('hello');
      const first = await s.events(turnsDone(1));
      expectOneTurn(first);
      expect(ofType(first, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text, show(first)).toContain(
        'Hello from fake model.',
      );
      expect(ofType(first, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length).toBeGreaterThan(0);
      expect(ofType(first, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
        stop_reason: 'end_turn',
      });
      await s.send('again');
      const both = await s.events(turnsDone(2));
      expect(ofType(both, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(both)).toMatchObject({
        stop_reason: 'end_turn',
      });
      await s.stop();
    });

    it('a tool call: the permission request is answered by policy, the tool runs', async () => {
      rmSync(join(bridge.daemon.repo, 'created.txt'), { force: true });
      const s = await bridge.start(`${id}_allow`);
      await s.send('please USE_TOOL');
      const all = await s.events(turnsDone(1));
      expect(ofType(all, T.EVENT_TYPE_TOOL_CALL).length, show(all)).toBeGreaterThan(0);
      expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT).length, show(all)).toBeGreaterThan(0);
      expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text, show(all)).toContain(
        'Tool ran fine.',
      );
      expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(true);
      await s.stop();
    });

    it('a tool call under permissions: deny is refused, recorded, and nothing runs', async () => {
      rmSync(join(bridge.daemon.repo, 'created.txt'), { force: true });
      const s = await bridge.start(id);
      await s.send('please USE_TOOL');
      const all = await s.events(turnsDone(1));
      const asked = ofType(all, T.EVENT_TYPE_TOOL_CALL).find((e) => e.data?.permission);
      expect(asked?.data, show(all)).toMatchObject({ permission: 'deny' });
      expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(false);
      await s.stop();
    });

    it('an interrupt ends a hanging turn; the session lives on', async () => {
      const s = await bridge.start(id);
      await s.send('HANG now');
      await s.events((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
      expect((await s.interrupt()).interrupted).toBe(true);
      const all = await s.events(turnsDone(1));
      expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, show(all)).toMatchObject({
        stop_reason: 'cancelled',
      });
      await s.send('hello');
      const next = await s.events(turnsDone(2));
      expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(next)).toMatchObject({
        stop_reason: 'end_turn',
      });
      expect((await s.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
      await s.stop();
    });

    it('a rejected API key surfaces as a clear AGENT_ERROR', async () => {
      const s = await bridge.start(`${id}_bad`);
      await s.send('hello');
      const all = await s.events(
        (evs) => turnsDone(1)(evs) && ofType(evs, T.EVENT_TYPE_AGENT_ERROR).length > 0,
      );
      const errors = ofType(all, T.EVENT_TYPE_AGENT_ERROR);
      expect(errors.map((e) => e.text).join('\n'), show(all)).toMatch(
        /API key|401|invalid|authentic/i,
      );
      await s.stop();
    });
  });
}

import { join } from 'node:path';
import type { SessionEvent } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  type ContractDaemon,
  codexHomeFor,
  contractDaemon,
  opencodeEnv,
  show,
  T,
  tempHome,
  turnsDone,
} from './contract-harness.js';

import { FakeAnthropicApi, type FakeModelApi, FakeOpenAiResponsesApi } from './fake-apis/index.js';

// Each real CLI through a daemon that is SIGKILLed between two turns and
// started again on its store: the session is resumed on the CLI's own
// conversation (claude --resume, codex thread/resume, opencode
// session/load), and the second turn's requests to the model API carry the
// first turn's prompt: the conversation remembers it.

const FIRST = 'remember the word PELICAN';
const SECOND = 'which word did I ask you to remember?';

const anthropic = new FakeAnthropicApi();
const openai = new FakeOpenAiResponsesApi();
const home = tempHome('restart');

beforeAll(async () => {
  await anthropic.start();
  await openai.start();
});

afterAll(async () => {
  await anthropic.stop();
  await openai.stop();
  home.cleanup();
});

const ended = (e: SessionEvent) =>
  e.type === T.EVENT_TYPE_SESSION_FAILED || e.type === T.EVENT_TYPE_SESSION_STOPPED;

/** A first turn, the daemon killed and started again, a second turn on the same session. */
async function throughARestart(api: FakeModelApi, id: string, provider: Record<string, unknown>) {
  let bridge: ContractDaemon = await contractDaemon({ [id]: provider });
  try {
    const s = await bridge.start(id);
    await s.send(FIRST);
    await s.events(turnsDone(1));
    bridge = await bridge.killAndRestart();
    const again = bridge.session(s.sessionId);
    const back = await again.events((all) =>
      all.some((e) => e.type === T.EVENT_TYPE_SESSION_RESUMED || ended(e)),
    );
    expect(back.at(-1)?.type, show(back)).toBe(T.EVENT_TYPE_SESSION_RESUMED);
    const before = api.requests.length;
    await again.send(SECOND);
    const all = await again.events(turnsDone(2));
    const sent = api.requests
      .slice(before)
      .map((r) => JSON.stringify(r.body))
      .join('\n');
    expect(sent, show(all)).toContain(SECOND);
    expect(sent, show(all)).toContain(FIRST);
    await again.stop();
  } finally {
    await bridge.close();
  }
}

describe('a conversation through a daemon restart', () => {
  it('claude: resumed with --resume, the second turn sent with the first', async () => {
    await throughARestart(anthropic, 'claude', {
      adapter: 'claude',
      binary: join(CLI_BIN, 'claude'),
      turn_timeout: '60s',
      env: {
        HOME: join(home.home, 'claude'),
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-test',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
    });
  });

  it('codex: resumed with thread/resume, the second turn sent with the first', async () => {
    const codexHome = codexHomeFor(join(home.home, 'codex'), openai.baseUrl);
    await throughARestart(openai, 'codex', {
      adapter: 'codex',
      binary: join(CLI_BIN, 'codex'),
      turn_timeout: '60s',
      env: { HOME: home.home, CODEX_HOME: codexHome, FAKE_KEY: 'sk-test' },
    });
  });

  it('opencode: resumed with session/load, the second turn sent with the first', async () => {
    await throughARestart(anthropic, 'opencode', {
      adapter: 'acp',
      binary: join(CLI_BIN, 'opencode'),
      turn_timeout: '90s',
      startup_timeout: '60s',
      env: opencodeEnv(anthropic.baseUrl, 'sk-test', join(home.home, 'opencode')),
    });
  });
});

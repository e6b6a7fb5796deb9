import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  codexHomeFor,
  contractDaemon,
  ofType,
  opencodeEnv,
  show,
  T,
  tempHome,
  turnsDone,
  writeFile,
} from './contract-harness.js';
import { FakeAnthropicApi, FakeGeminiApi, FakeOpenAiResponsesApi } from './fake-apis/index.js';

// Agents of different vendors working together through the bridge's tools:
// the real claude, codex and opencode in one daemon, each pointed at its
// loopback model fake, which scripts the tool calls (BRIDGE_TOOL).

const anthropic = new FakeAnthropicApi();
const opencodeApi = new FakeAnthropicApi();
const openai = new FakeOpenAiResponsesApi();
const gemini = new FakeGeminiApi();
const home = tempHome('collaboration');
let bridge: Awaited<ReturnType<typeof contractDaemon>>;

const BRIDGE_TOOLS = [
  'context_post',
  'context_read',
  'context_ack',
  'message_send',
  'inbox',
  'message_reply',
  'wait_for_message',
  'who',
];

beforeAll(async () => {
  await Promise.all([anthropic.start(), opencodeApi.start(), openai.start(), gemini.start()]);
  const geminiHome = join(home.home, 'gemini');
  // Without this, GOOGLE_GEMINI_BASE_URL selects "gateway" auth and gemini exits 41.
  writeFile(
    join(geminiHome, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  bridge = await contractDaemon({
    claude: {
      adapter: 'claude',
      binary: join(CLI_BIN, 'claude'),
      turn_timeout: '60s',
      env: {
        HOME: home.home,
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-test',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
    },
    // Writes in its repository: the sandbox allows it, the bridge answers the command's approval.
    codex: {
      adapter: 'codex',
      binary: join(CLI_BIN, 'codex'),
      turn_timeout: '60s',
      permissions: 'allow',
      default_opts: { sandbox: 'workspace-write', approval_policy: 'untrusted' },
      env: {
        HOME: home.home,
        CODEX_HOME: codexHomeFor(join(home.home, 'codex'), openai.baseUrl),
        FAKE_KEY: 'sk-test',
      },
    },
    opencode: {
      adapter: 'acp',
      binary: join(CLI_BIN, 'opencode'),
      turn_timeout: '90s',
      // opencode needs several seconds for its first start on a loaded machine.
      startup_timeout: '60s',
      env: opencodeEnv(opencodeApi.baseUrl, 'sk-test', join(home.home, 'opencode')),
    },
    gemini: {
      adapter: 'acp',
      binary: join(CLI_BIN, 'gemini'),
      args: ['-m', 'gemini-2.5-flash', '--acp'],
      turn_timeout: '90s',
      startup_timeout: '60s',
      env: { HOME: geminiHome, GEMINI_API_KEY: 'sk-test', GOOGLE_GEMINI_BASE_URL: gemini.baseUrl },
    },
  });
});

afterAll(async () => {
  await bridge?.close();
  await Promise.all([anthropic.stop(), opencodeApi.stop(), openai.stop(), gemini.stop()]);
  home.cleanup();
});

describe('agents of different vendors work together through the bridge', () => {
  it('claude posts a finding to the bus; codex reads it and writes a file from it', async () => {
    const finding = 'the retry loop in fetch.ts never backs off';
    const claude = await bridge.start('claude');
    await claude.send(
      `please BRIDGE_TOOL context_post {"category":"finding","priority":"high","content":"${finding}"}`,
    );
    const posted = await claude.events(turnsDone(1));
    expect(ofType(posted, T.EVENT_TYPE_CONTEXT_POSTED), show(posted)).toHaveLength(1);

    const codex = await bridge.start('codex');
    const from = openai.requests.length;
    await codex.send(
      'please BRIDGE_TOOL context_read {"category":"finding"} THEN_WRITE finding.txt',
    );
    const all = await codex.events(turnsDone(1));
    const why = show(all);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, why).toMatchObject({
      status: 'completed',
    });
    // codex offered the bridge's tools in its first request (one namespace holding them) ...
    const first = openai.requests[from]?.body as {
      tools?: { name?: string; tools?: { name: string }[] }[];
    };
    const offered = first.tools?.find((t) => t.name === 'mcp__bridge')?.tools?.map((t) => t.name);
    expect(offered?.sort(), why).toEqual([...BRIDGE_TOOLS].sort());
    // ... called context_read without asking, got claude's post, and acted on it.
    const results = ofType(all, T.EVENT_TYPE_TOOL_RESULT).map((e) => JSON.stringify(e.data));
    expect(
      results.find((r) => r.includes(finding)),
      why,
    ).toBeDefined();
    expect(readFileSync(join(bridge.daemon.repo, 'finding.txt'), 'utf8')).toBe(finding);
    const asked = ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED).map((e) => JSON.stringify(e.data));
    expect(
      asked.filter((a) => a.includes('context_read')),
      why,
    ).toEqual([]);
    await Promise.all([claude.stop(), codex.stop()]);
  });

  it('an ACP agent (opencode) messages an idle claude session, which takes it as a turn', async () => {
    const text = 'please look at the failing test in ci.yml';
    const claude = await bridge.start('claude');
    const opencode = await bridge.start('opencode');
    await opencode.send(
      `please BRIDGE_TOOL message_send {"to":"${claude.sessionId}","content":"${text}","deliver":"turn"}`,
    );
    const sent = await opencode.events(turnsDone(1));
    expect(ofType(sent, T.EVENT_TYPE_MESSAGE_SENT), show(sent)).toHaveLength(1);
    const got = await claude.events(turnsDone(1));
    const why = show(got);
    const received = ofType(got, T.EVENT_TYPE_MESSAGE_RECEIVED);
    expect(
      received.map((e) => e.text),
      why,
    ).toEqual([text]);
    expect(received[0]?.data, why).toMatchObject({
      from: opencode.sessionId,
      from_kind: 'session',
      deliver: 'turn',
    });
    const turn = ofType(got, T.EVENT_TYPE_TURN_STARTED)[0];
    expect(turn, why).toBeDefined();
    expect(received[0]!.seq, why).toBeLessThan(turn!.seq);
    // The message reached claude's model as the turn's input.
    expect(JSON.stringify(anthropic.requests.map((r) => r.body)), why).toContain(text);
    await Promise.all([claude.stop(), opencode.stop()]);
  });

  it('gemini (ACP) posts to the bus without a permission request, as itself', async () => {
    const s = await bridge.start('gemini');
    await s.send('please BRIDGE_TOOL context_post {"category":"note","content":"from gemini"}');
    const all = await s.events(turnsDone(1));
    const why = show(all);
    // gemini asks before an MCP tool call; the adapter answers for the bridge's own.
    expect(ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED), why).toEqual([]);
    const posted = ofType(all, T.EVENT_TYPE_CONTEXT_POSTED);
    expect(
      posted.map((e) => e.text),
      why,
    ).toEqual(['from gemini']);
    expect(posted[0]?.data, why).toMatchObject({ from: s.sessionId, category: 'note' });
    await s.stop();
  });
});

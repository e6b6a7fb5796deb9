import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '@agent-bridge/harness';
import { ProviderAuthState, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  contractDaemon,
  expectConcurrentStart,
  expectInterruptAgreement,
  expectInterruptAtTurnStart,
  expectOneTurn,
  expectPermission,
  expectToolTurn,
  ofType,
  show,
  T,
  tempHome,
  turnsDone,
} from './contract-harness.js';
import { FakeAnthropicApi } from './fake-apis/index.js';
import { gateContract, gateProviders } from './permission-contract.js';

// The real Claude Code 2.1.332 (`claude -p` stream-json) through the daemon,
// pointed at a loopback Anthropic Messages fake with ANTHROPIC_BASE_URL.

const api = new FakeAnthropicApi();
const home = tempHome('claude');
let bridge: Awaited<ReturnType<typeof contractDaemon>>;

beforeAll(async () => {
  await api.start();
  const provider = (key: string, extra: Record<string, unknown> = {}) => ({
    adapter: 'claude',
    binary: join(CLI_BIN, 'claude'),
    turn_timeout: '60s',
    env: {
      HOME: home.home,
      ANTHROPIC_BASE_URL: api.baseUrl,
      ANTHROPIC_API_KEY: key,
      CLAUDE_CODE_MAX_RETRIES: '0',
    },
    ...extra,
  });
  const freshHome = join(home.home, 'fresh');
  mkdirSync(freshHome);
  bridge = await contractDaemon({
    claude: provider('sk-test'),
    claude_allow: provider('sk-test', { permissions: 'allow' }),
    claude_bad: provider('sk-bad'),
    claude_fresh: provider('sk-test', { env: { ...provider('sk-test').env, HOME: freshHome } }),
    ...gateProviders('claude', 'Bash', (gate) => provider('sk-test', gate)),
  });
});

afterAll(async () => {
  await bridge?.close();
  await api.stop();
  home.cleanup();
});

describe('claude 2.1.332 through the daemon', () => {
  it('ListProviders reports the real version and the auth status', async () => {
    expect(await bridge.probed('claude')).toMatchObject({
      available: true,
      version: '2.1.332',
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
    });
  });

  it('a text turn with deltas, then a second turn in the same process', async () => {
    const s = await bridge.start('claude');
    await s.send('hello');
    const first = await s.events(turnsDone(1));
    expectOneTurn(first);
    expect(ofType(first, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text, show(first)).toBe(
      'Hello from fake model.',
    );
    expect(
      ofType(first, T.EVENT_TYPE_AGENT_MESSAGE_DELTA)
        .map((e) => e.text)
        .join(''),
    ).toBe('Hello from fake model.');
    // The usage is what the fake API reported, carried through claude and the adapter.
    expect(ofType(first, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
      status: 'completed',
      is_error: false,
      claude_code_version: '2.1.332',
      usage: { input_tokens: 12, output_tokens: 7 },
      total_cost_usd: expect.any(Number),
    });
    await s.send('again');
    const both = await s.events(turnsDone(2));
    expect(ofType(both, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(both)).toMatchObject({
      status: 'completed',
    });
    await s.stop();
  });

  it('a tool call: the permission prompt is answered by policy, the tool runs', async () => {
    const s = await bridge.start('claude_allow');
    await s.send('please USE_TOOL');
    const all = await s.events(turnsDone(1));
    expectOneTurn(all);
    const result = expectToolTurn(all, 'Tool ran fine.');
    expect(result.data, show(all)).toMatchObject({ is_error: false });
    const calls = ofType(all, T.EVENT_TYPE_TOOL_CALL);
    expect(calls[0]?.data, show(all)).toMatchObject({
      name: 'Bash',
      input: { command: 'touch created.txt' },
    });
    expectPermission(
      all,
      {
        tool: 'Bash',
        summary: 'touch created.txt',
        input: { command: 'touch created.txt' },
        options: ['allow_once', 'allow_session', 'deny'],
        mode: 'allow',
        tool_call_id: calls[0]?.data?.tool_use_id,
      },
      { decision: 'allow_once', decided_by: 'policy' },
    );
    expect(ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED)[0]?.data).not.toHaveProperty(
      'expires_at',
    );
    expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(true);
    // The tool's result went back to the model, which then gave its answer.
    expect(api.served).toContain('after-tool');
    await s.stop();
  });

  it('a tool call under permissions: deny is refused, recorded, and nothing runs', async () => {
    rmSync(join(bridge.daemon.repo, 'created.txt'), { force: true });
    const s = await bridge.start('claude');
    await s.send('please USE_TOOL');
    const all = await s.events(turnsDone(1));
    expectPermission(
      all,
      { tool: 'Bash', mode: 'deny' },
      { decision: 'deny', decided_by: 'policy' },
    );
    // Claude passes the denial to the model as the tool's error result.
    const result = ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0];
    expect(result?.data, show(all)).toMatchObject({ is_error: true });
    expect(result?.text, show(all)).toContain("denied by the bridge's policy");
    expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(false);
    await s.stop();
  });

  it('an interrupt ends a hanging turn; the session lives on', async () => {
    const s = await bridge.start('claude');
    await s.send('HANG now');
    await s.events((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
    expect((await s.interrupt()).interrupted).toBe(true);
    const all = await s.events(turnsDone(1));
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, show(all)).toMatchObject({
      status: 'interrupted',
    });
    await s.send('hello');
    const next = await s.events(turnsDone(2));
    expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(next)).toMatchObject({
      status: 'completed',
    });
    expect((await s.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await s.stop();
  });

  it('an interrupt sent right at TURN_STARTED is not lost', async () => {
    await expectInterruptAtTurnStart(await bridge.start('claude'), { status: 'interrupted' });
  });

  it('an interrupt racing the end of a turn: the answer and TURN_COMPLETED agree', async () => {
    await expectInterruptAgreement(await bridge.start('claude'));
  });

  it('sessions started at the same moment in a fresh HOME all start', async () => {
    await expectConcurrentStart(() => bridge.start('claude_fresh'));
  });

  it('the bridge collaboration tools: claude lists them and posts through bridge mcp', async () => {
    const s = await bridge.start('claude');
    const from = api.requests.length;
    await s.send(
      'please BRIDGE_TOOL context_post {"category":"finding","content":"found by the real claude"}',
    );
    const all = await s.events(turnsDone(1));
    expectOneTurn(all);
    // claude told the model about the bridge's tools, as MCP listed them (2.1.332 defers
    // MCP tools behind ToolSearch: they are named in the request, not in `tools`).
    const told = JSON.stringify(api.requests.slice(from).map((r) => r.body));
    for (const name of [
      'context_post',
      'context_read',
      'message_send',
      'wait_for_message',
      'who',
    ]) {
      expect(told, show(all)).toContain(`mcp__bridge__${name}`);
    }
    // Allowed without a permission request: the bridge's own tools.
    expect(ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED), show(all)).toEqual([]);
    const result = ofType(all, T.EVENT_TYPE_TOOL_RESULT).at(-1);
    expect(JSON.stringify(result?.data), show(all)).toContain('post_id');
    const page = await call(
      bridge.client,
      (c) => c.readContext,
      {
        afterId: 0n,
        since: undefined,
        category: 'finding',
        source: s.sessionId,
        threadId: '',
        unacked: false,
        limit: 0,
      },
      await bridge.auth(),
    );
    expect(page.posts.map((p) => [p.from?.id, p.content])).toEqual([
      [s.sessionId, 'found by the real claude'],
    ]);
    expect(ofType(all, T.EVENT_TYPE_CONTEXT_POSTED)).toHaveLength(1);
    await s.stop();
  });

  it('a rejected API key surfaces as a clear AGENT_ERROR and a failed turn', async () => {
    const s = await bridge.start('claude_bad');
    await s.send('hello');
    const all = await s.events(turnsDone(1));
    const errors = ofType(all, T.EVENT_TYPE_AGENT_ERROR);
    expect(errors.map((e) => e.text).join('\n'), show(all)).toMatch(/API key|401|authenticat/i);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({ status: 'failed' });
    await s.stop();
  });
});

gateContract({
  id: 'claude',
  bridge: () => bridge,
  api,
  tool: 'Bash',
  requested: {
    summary: 'touch created.txt',
    input: { command: 'touch created.txt' },
    options: ['allow_once', 'allow_session', 'deny'],
  },
  ran: { is_error: false },
  refused: ({ all, requests, message }) => {
    // The tool's error result carries the denial, to the model too.
    const result = ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0];
    expect(result?.data, show(all)).toMatchObject({ is_error: true });
    expect(result?.text, show(all)).toContain(message);
    const followUp = requests().filter((r) => JSON.stringify(r.body).includes('"tool_result"'));
    expect(followUp.length, show(all)).toBeGreaterThan(0);
    expect(JSON.stringify(followUp[0]?.body)).toContain(message);
  },
});

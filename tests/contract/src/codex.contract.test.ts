import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderAuthState, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  codexHomeFor,
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
import { FakeOpenAiResponsesApi } from './fake-apis/index.js';
import { gateContract, gateProviders } from './permission-contract.js';

// The real codex 0.171.0 (`codex app-server`) through the daemon, pointed at
// a loopback OpenAI Responses fake by a custom model provider in its
// config.toml, as an operator would.

const api = new FakeOpenAiResponsesApi();
const home = tempHome('codex');
let bridge: Awaited<ReturnType<typeof contractDaemon>>;

function codexHome(name: string): string {
  return codexHomeFor(join(home.home, name), api.baseUrl);
}

beforeAll(async () => {
  await api.start();
  const provider = (key: string, name: string, extra: Record<string, unknown> = {}) => ({
    adapter: 'codex',
    binary: join(CLI_BIN, 'codex'),
    turn_timeout: '60s',
    env: { HOME: home.home, CODEX_HOME: codexHome(name), FAKE_KEY: key },
    ...extra,
  });
  bridge = await contractDaemon({
    codex: provider('sk-test', 'plain'),
    codex_allow: provider('sk-test', 'allow', {
      permissions: 'allow',
      default_opts: { sandbox: 'workspace-write', approval_policy: 'untrusted' },
    }),
    codex_bad: provider('sk-bad', 'bad'),
    codex_fresh: provider('sk-test', 'fresh'),
    ...gateProviders('codex', 'commandExecution', (gate) =>
      provider('sk-test', `gate-${Object.values(gate).join('-')}`, {
        ...gate,
        default_opts: { sandbox: 'workspace-write', approval_policy: 'untrusted' },
      }),
    ),
  });
});

afterAll(async () => {
  await bridge?.close();
  await api.stop();
  home.cleanup();
});

describe('codex 0.171.0 through the daemon', () => {
  it('ListProviders reports the real version and the login state', async () => {
    expect(await bridge.probed('codex')).toMatchObject({
      available: true,
      version: '0.171.0',
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNAUTHENTICATED,
    });
  });

  it('a text turn, then a second turn in the same thread', async () => {
    const s = await bridge.start('codex');
    await s.send('hello');
    const first = await s.events(turnsDone(1));
    expectOneTurn(first);
    const msg = ofType(first, T.EVENT_TYPE_AGENT_MESSAGE)[0];
    expect(msg?.text, show(first)).toBe('Hello from fake model.');
    expect(
      ofType(first, T.EVENT_TYPE_AGENT_MESSAGE_DELTA)
        .map((e) => e.text)
        .join(''),
    ).toBe('Hello from fake model.');
    const done = ofType(first, T.EVENT_TYPE_TURN_COMPLETED)[0];
    expect(done?.turnId).toBe(msg?.turnId);
    // This turn's usage is what the fake API reported (codex's thread total is beside it).
    expect(done?.data).toMatchObject({
      status: 'completed',
      usage: { input_tokens: 22, output_tokens: 10, total_tokens: 32 },
    });
    await s.send('again');
    const both = await s.events(turnsDone(2));
    expect(ofType(both, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(both)).toMatchObject({
      status: 'completed',
    });
    expect(ofType(both, T.EVENT_TYPE_AGENT_MESSAGE)).toHaveLength(2);
    await s.stop();
  });

  it('a turn with a tool call: approved by policy, run, and answered', async () => {
    const s = await bridge.start('codex_allow');
    await s.send('please USE_TOOL');
    const all = await s.events(turnsDone(1));
    expectOneTurn(all);
    const result = expectToolTurn(all, 'Tool ran fine.');
    expect(result.data, show(all)).toMatchObject({
      name: 'commandExecution',
      status: 'completed',
      is_error: false,
    });
    expect(ofType(all, T.EVENT_TYPE_TOOL_CALL)[0]?.text, show(all)).toContain('touch created.txt');
    expectPermission(
      all,
      {
        tool: 'commandExecution',
        summary: "/bin/bash -lc 'touch created.txt'",
        input: { command: "/bin/bash -lc 'touch created.txt'", cwd: bridge.daemon.repo },
        options: ['allow_once', 'allow_session', 'deny'],
        mode: 'allow',
        approval_request: 'item/commandExecution/requestApproval',
      },
      { decision: 'allow_once', decided_by: 'policy' },
    );
    expect(ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED)[0]?.data).not.toHaveProperty(
      'expires_at',
    );
    expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(true);
    expect(api.served).toContain('after-tool');
    await s.stop();
  });

  it('a tool call under permissions: deny is refused, recorded, and nothing runs', async () => {
    rmSync(join(bridge.daemon.repo, 'created.txt'), { force: true });
    const s = await bridge.start('codex');
    await s.send('please USE_TOOL');
    const all = await s.events(turnsDone(1));
    expectPermission(
      all,
      { tool: 'commandExecution', mode: 'deny' },
      { decision: 'deny', decided_by: 'policy' },
    );
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data, show(all)).toMatchObject({
      status: 'declined',
      is_error: true,
    });
    expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(false);
    await s.stop();
  });

  it('an interrupt ends a hanging turn; the session lives on', async () => {
    const s = await bridge.start('codex');
    await s.send('HANG now');
    await s.events((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
    const res = await s.interrupt();
    expect(res.interrupted).toBe(true);
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
    await expectInterruptAtTurnStart(await bridge.start('codex'), { status: 'interrupted' });
  });

  it('an interrupt racing the end of a turn: the answer and TURN_COMPLETED agree', async () => {
    await expectInterruptAgreement(await bridge.start('codex'));
  });

  it('sessions started at the same moment in a fresh CODEX_HOME all start', async () => {
    await expectConcurrentStart(() => bridge.start('codex_fresh'));
  });

  it('a rejected API key surfaces as a clear AGENT_ERROR and a failed turn', async () => {
    const s = await bridge.start('codex_bad');
    await s.send('hello');
    const all = await s.events(turnsDone(1));
    const errors = ofType(all, T.EVENT_TYPE_AGENT_ERROR);
    expect(errors.length, show(all)).toBeGreaterThan(0);
    expect(errors.map((e) => e.text).join('\n')).toMatch(/401|Unauthorized|API key/i);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({ status: 'failed' });
    await s.stop();
  });
});

gateContract({
  id: 'codex',
  bridge: () => bridge,
  api,
  tool: 'commandExecution',
  requested: {
    summary: "/bin/bash -lc 'touch created.txt'",
    options: ['allow_once', 'allow_session', 'deny'],
    approval_request: 'item/commandExecution/requestApproval',
  },
  ran: { name: 'commandExecution', status: 'completed', is_error: false },
  refused: async ({ all, requests, message, session }) => {
    // 0.169 offers accept / acceptWithExecpolicyAmendment / cancel, no decline: the
    // driver answers "cancel", the item is declined and the turn ends there, with
    // no request to the model after it.
    const why = show(all);
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data, why).toMatchObject({
      name: 'commandExecution',
      status: 'declined',
      is_error: true,
    });
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, why).toMatchObject({
      status: 'interrupted',
      interrupted: false,
    });
    expect(requests(), why).toHaveLength(1);
    // The model hears of it with the next input: the call's output says it was
    // aborted, and codex adds a <turn_aborted> note. The bridge's reason has no
    // place in codex's answer, so it never reaches the model.
    await session.send('hello');
    const next = await session.events(turnsDone(2));
    const callId = ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data?.tool_call_id;
    const body = requests().at(-1)?.body as { input?: Record<string, unknown>[] } | undefined;
    const input = body?.input ?? [];
    expect(
      input.find((i) => i.type === 'function_call_output' && i.call_id === callId)?.output,
      show(next),
    ).toMatch(/aborted by user/);
    expect(JSON.stringify(input)).toContain('<turn_aborted>');
    expect(JSON.stringify(requests().map((r) => r.body))).not.toContain(message);
  },
});

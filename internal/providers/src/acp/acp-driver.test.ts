import { nextTurn } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { InputClosedError } from '../contract/errors.js';
import { PERMISSION_DECISIONS, type PermissionVerdict } from '../contract/permission.js';
import type { ToolServer } from '../contract/provider.js';
import { driverHarness, type HarnessOptions } from '../testing/driver-harness.js';
import { AcpDriver, type AcpDriverOptions } from './acp-driver.js';

// Real answers of opencode 1.18.33 (`opencode acp`), shortened where the capture was.
const O5_INIT =
  '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"mcpCapabilities":{"http":true,"sse":true},"promptCapabilities":{"embeddedContext":true,"image":true},"sessionCapabilities":{"close":{},"fork":{},"list":{},"resume":{}}},"authMethods":[{"description":"Run `opencode auth login` in the terminal","name":"Login with opencode","id":"opencode-login"}],"agentInfo":{"name":"OpenCode","version":"1.18.33"}}}';
const O5_NEW =
  '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","configOptions":[{"id":"model","name":"Model","category":"model","type":"select","currentValue":"fakeanth/fake-model","options":[{"value":"opencode/big-pickle","name":"OpenCode Zen/Big Pickle"}]}]}}';
const O5_HANG_CHUNK =
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_202440634001SaV66jVKuaksYf","content":{"type":"text","text":"thinking..."}}}}';
// gemini 0.61.0 (`gemini --acp`): modes and the unstable models block.
const G3_NEW =
  '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"2a525bca-8312-4001-a217-2a9e43c497b3","modes":{"availableModes":[{"id":"default","name":"Default","description":"Prompts for approval"},{"id":"autoEdit","name":"Auto Edit","description":"Auto-approves edit tools"},{"id":"yolo","name":"YOLO","description":"Auto-approves all tools"},{"id":"plan","name":"Plan","description":"Read-only mode"}],"currentModeId":"default"},"models":{"availableModels":[{"modelId":"auto","name":"Auto"}]}}}';

function setup(
  options: Record<string, string> = {},
  opts: Partial<AcpDriverOptions> = {},
  permissions: HarnessOptions['permissions'] = 'deny',
  interruptWaitMs?: number,
  tools?: ToolServer,
) {
  return driverHarness((ctx) => new AcpDriver(ctx, { modelVia: 'protocol', ...opts }), {
    options,
    permissions,
    ...(interruptWaitMs !== undefined ? { interruptWaitMs } : {}),
    ...(tools ? { tools } : {}),
  });
}

/** Runs the handshake, answering initialize and session/new (and any set_* request) in turn. */
async function handshake(t: ReturnType<typeof setup>, newSession = O5_NEW) {
  const done = t.driver.handshake();
  await nextTurn();
  t.feed(O5_INIT);
  await nextTurn();
  t.feed(newSession);
  await nextTurn();
  for (let i = 0; i < 3 && t.last().method?.startsWith('session/set_'); i++) {
    t.feed({ jsonrpc: '2.0', id: t.last().id, result: {} });
    await nextTurn();
  }
  await done;
}

describe('AcpDriver handshake', () => {
  it('initializes as ACP v1 without fs or terminal, then opens a session in the repo', async () => {
    const t = setup();
    await handshake(t);
    expect(t.written).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: 1,
          clientCapabilities: {
            fs: { readTextFile: false, writeTextFile: false },
            terminal: false,
          },
          clientInfo: { name: 'agent-bridge', version: '0.1.0' },
        },
      },
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/repo', mcpServers: [] } },
    ]);
    expect(t.driver.agent.info).toEqual({ name: 'OpenCode', version: '1.18.33' });
    expect(t.driver.agent.authMethods.map((m) => m.id)).toEqual(['opencode-login']);
    expect(t.driver.agent.capabilities).toMatchObject({ loadSession: true });
  });

  it('refuses an agent that answers with another protocol version', async () => {
    const t = setup();
    const done = t.driver.handshake();
    t.feed({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 2 } });
    await expect(done).rejects.toThrow(
      'the agent speaks ACP protocol version 2; this client speaks 1',
    );
  });

  it('explains auth_required from session/new with the agent`s sign-in methods', async () => {
    const t = setup();
    const done = t.driver.handshake();
    t.feed(O5_INIT);
    await nextTurn();
    t.feed({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'Authentication required' } });
    await expect(done).rejects.toThrow(
      'session/new: Authentication required (the agent is not authenticated; it supports: Login with opencode)',
    );
  });

  it('sets the model through the model config option (opencode)', async () => {
    const t = setup({ model: 'opencode/big-pickle' });
    await handshake(t);
    expect(t.written[2]).toEqual({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/set_config_option',
      params: {
        sessionId: 'ses_dfdbbff74ffeNpjE5DBefn5Y6q',
        configId: 'model',
        value: 'opencode/big-pickle',
      },
    });
  });

  it('sets mode and model on an agent with modes and only the models block; argv models are left alone', async () => {
    const t = setup({ mode: 'plan', model: 'gemini-2.5-flash' });
    await handshake(t, G3_NEW);
    expect(t.written.slice(2).map((m) => [m.method, m.params])).toEqual([
      ['session/set_mode', { sessionId: '2a525bca-8312-4001-a217-2a9e43c497b3', modeId: 'plan' }],
      [
        'session/set_model',
        { sessionId: '2a525bca-8312-4001-a217-2a9e43c497b3', modelId: 'gemini-2.5-flash' },
      ],
    ]);
    const argv = setup({ model: 'gemini-2.5-flash', mode: 'default' }, { modelVia: 'argv' });
    await handshake(argv, G3_NEW);
    expect(argv.written).toHaveLength(2);
  });

  it('fails start-up for a mode the agent does not offer', async () => {
    const t = setup({ mode: 'plan' });
    const done = t.driver.handshake();
    t.feed(O5_INIT);
    await nextTurn();
    t.feed(O5_NEW);
    await expect(done).rejects.toThrow('agent_opts.mode: this agent offers no session modes');
    const g = setup({ mode: 'build' });
    const gDone = g.driver.handshake();
    g.feed(O5_INIT);
    await nextTurn();
    g.feed(G3_NEW);
    await expect(gDone).rejects.toThrow(
      'agent_opts.mode: this agent has no mode "build" (it offers: default, autoEdit, yolo, plan)',
    );
  });
});

describe('AcpDriver turns', () => {
  it('prompts, starts the turn after the input is recorded, and completes it with the response', async () => {
    const t = setup();
    await handshake(t);
    t.send('hello');
    expect(t.recordedAt).toEqual([0]);
    expect(t.last()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/prompt',
      params: {
        sessionId: 'ses_dfdbbff74ffeNpjE5DBefn5Y6q',
        prompt: [{ type: 'text', text: 'hello' }],
      },
    });
    expect(t.events[0]).toMatchObject({
      type: 'TURN_STARTED',
      turnId: 'turn-1',
      data: {
        acp_session_id: 'ses_dfdbbff74ffeNpjE5DBefn5Y6q',
        agent: 'OpenCode',
        agent_version: '1.18.33',
      },
    });
    t.feed(O5_HANG_CHUNK);
    t.feed(
      '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":12,"outputTokens":7,"totalTokens":19},"_meta":{}}}',
    );
    await nextTurn();
    expect(t.events.map((e) => [e.type, e.turnId])).toEqual([
      ['TURN_STARTED', 'turn-1'],
      ['AGENT_MESSAGE_DELTA', 'turn-1'],
      ['AGENT_MESSAGE', 'turn-1'],
      ['TURN_COMPLETED', 'turn-1'],
    ]);
    expect(t.events.at(-1)).toMatchObject({
      text: 'end_turn',
      done: true,
      data: {
        stop_reason: 'end_turn',
        interrupted: false,
        usage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
      },
    });
  });

  it('queues inputs sent during a turn and runs them one after another', async () => {
    const t = setup();
    await handshake(t);
    t.send('one');
    t.send('two');
    expect(t.written.filter((m) => m.method === 'session/prompt')).toHaveLength(1);
    t.feed({ jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } });
    await nextTurn();
    expect(t.last()).toMatchObject({
      id: 4,
      method: 'session/prompt',
      params: { prompt: [{ text: 'two' }] },
    });
    expect(t.events.at(-1)).toMatchObject({
      type: 'TURN_STARTED',
      turnId: 'turn-2',
      data: { queued: true },
    });
    t.feed({ jsonrpc: '2.0', id: 4, result: { stopReason: 'max_tokens' } });
    await nextTurn();
    expect(t.events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      turnId: 'turn-2',
      data: { stop_reason: 'max_tokens', interrupted: false },
    });
  });

  it('a JSON-RPC error answer to the prompt is an AGENT_ERROR and a failed turn; the session goes on', async () => {
    const t = setup();
    await handshake(t);
    t.send('hi');
    t.feed({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32603,
        message: 'Internal error',
        data: { message: 'invalid x-api-key', statusCode: 401 },
      },
    });
    await nextTurn();
    expect(t.events.slice(1)).toEqual([
      {
        type: 'AGENT_ERROR',
        stream: 'system',
        text: 'the agent failed the turn: Internal error: invalid x-api-key',
        error: 'Internal error: invalid x-api-key',
        turnId: 'turn-1',
        data: {
          reason: 'prompt_error',
          code: -32603,
          error_data: { message: 'invalid x-api-key', statusCode: 401 },
        },
      },
      expect.objectContaining({
        type: 'TURN_COMPLETED',
        data: expect.objectContaining({
          stop_reason: 'error',
          error: 'Internal error: invalid x-api-key',
        }),
      }),
    ]);
    t.send('again');
    expect(t.last()).toMatchObject({ id: 4, method: 'session/prompt' });
  });

  it('interrupts with session/cancel and reports the cancelled turn', async () => {
    const t = setup();
    await handshake(t);
    expect(await t.interrupt()).toEqual({ interrupted: false, turnId: '' });
    t.send('HANG');
    t.feed(O5_HANG_CHUNK);
    const r = t.interrupt();
    expect(t.last()).toEqual({
      jsonrpc: '2.0',
      method: 'session/cancel',
      params: { sessionId: 'ses_dfdbbff74ffeNpjE5DBefn5Y6q' },
    });
    t.feed(
      '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled","usage":{"inputTokens":0,"outputTokens":0,"totalTokens":0},"_meta":{}}}',
    );
    expect(await r).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(t.events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      data: { stop_reason: 'cancelled', interrupted: true },
    });
  });

  it('reports interrupted:false when the agent does not end the turn in time', async () => {
    const t = setup({}, {}, 'deny', 20);
    await handshake(t);
    t.send('HANG');
    expect(await t.interrupt()).toEqual({ interrupted: false, turnId: 'turn-1' });
  });

  it('throws InputClosedError at once, recording nothing, when the agent no longer reads', async () => {
    const t = setup();
    await handshake(t);
    t.closeInput();
    expect(() => t.send('lost')).toThrow(InputClosedError);
    await nextTurn();
    expect(t.events).toEqual([]);
    t.exit();
    expect(() => t.send('late')).toThrow(InputClosedError);
  });

  it('says nothing more about a turn whose agent died: the session failure reports it', async () => {
    const t = setup();
    await handshake(t);
    t.send('x');
    t.exit();
    await nextTurn();
    expect(t.events.map((e) => e.type)).toEqual(['TURN_STARTED']);
  });
});

const SESSION = 'ses_dfdbbff74ffeNpjE5DBefn5Y6q';
const ALL_OPTIONS = [
  { optionId: 'once', kind: 'allow_once', name: 'Allow once' },
  { optionId: 'always', kind: 'allow_always', name: 'Always allow' },
  { optionId: 'reject', kind: 'reject_once', name: 'Reject' },
];

/** opencode's `session/request_permission` for a shell command, as request `id`. */
function permissionRequest(id: number, toolCall: object, options: object[] = ALL_OPTIONS) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'session/request_permission',
    params: { sessionId: SESSION, toolCall, options },
  };
}
const TOUCH = {
  toolCallId: 'toolu_fake_10',
  title: 'touch created.txt',
  kind: 'execute',
  rawInput: { command: 'touch created.txt' },
};
const selected = (id: number, optionId: string) => ({
  jsonrpc: '2.0',
  id,
  result: { outcome: { outcome: 'selected', optionId } },
});
const cancelled = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { outcome: { outcome: 'cancelled' } },
});

/** A verdict the test gives by hand, after the driver asked. */
function heldVerdict() {
  let give: (v: PermissionVerdict) => void = () => {};
  const verdict = new Promise<PermissionVerdict>((r) => {
    give = r;
  });
  return { permissions: () => verdict, give };
}

describe('AcpDriver asks the session gate about permission requests', () => {
  it('asks with the tool call`s kind, title, input and the decisions the options allow', async () => {
    const t = setup();
    await handshake(t);
    t.send('USE_TOOL');
    t.feed(permissionRequest(0, TOUCH));
    await nextTurn();
    expect(t.asks).toEqual([
      {
        tool: 'execute',
        summary: 'touch created.txt',
        input: { command: 'touch created.txt' },
        options: PERMISSION_DECISIONS,
        toolCallId: 'toolu_fake_10',
        turnId: 'turn-1',
        details: { title: 'touch created.txt' },
      },
    ]);
    // The request announces the tool call, with no word of the permission (the gate records it).
    expect(t.events.at(-1)).toEqual({
      type: 'TOOL_CALL',
      stream: 'system',
      text: 'touch created.txt',
      turnId: 'turn-1',
      data: {
        tool_call_id: 'toolu_fake_10',
        name: 'touch created.txt',
        input: { command: 'touch created.txt' },
        kind: 'execute',
      },
    });
  });

  it('without kind or title: tool "tool", the input summarized; deny only when no allow is offered', async () => {
    const t = setup();
    await handshake(t);
    t.send('USE_TOOL');
    t.feed(
      permissionRequest(0, { toolCallId: 'c1', rawInput: { file_path: '/repo/a.ts' } }, [
        { optionId: 'reject', kind: 'reject_once' },
      ]),
      permissionRequest(1, {}, [{ optionId: 'always', kind: 'allow_always' }]),
    );
    await nextTurn();
    expect(t.asks).toEqual([
      {
        tool: 'tool',
        summary: '/repo/a.ts',
        input: { file_path: '/repo/a.ts' },
        options: ['deny'],
        toolCallId: 'c1',
        turnId: 'turn-1',
      },
      {
        tool: 'tool',
        summary: '',
        input: null,
        options: ['allow_session', 'deny'],
        turnId: 'turn-1',
      },
    ]);
  });

  it.each([
    ['allow_once', 'once'],
    ['allow_session', 'once'],
    ['deny', 'reject'],
  ] as const)('answers %s with the option %s', async (decision, optionId) => {
    const t = setup({}, {}, decision);
    await handshake(t);
    t.send('USE_TOOL');
    t.feed(permissionRequest(0, TOUCH));
    await nextTurn();
    expect(t.last()).toEqual(selected(0, optionId));
  });

  it('answers allow_session with allow_always when that is the only allow option', async () => {
    const t = setup({}, {}, 'allow_session');
    await handshake(t);
    t.send('USE_TOOL');
    t.feed(permissionRequest(0, TOUCH, ALL_OPTIONS.slice(1)));
    await nextTurn();
    expect(t.last()).toEqual(selected(0, 'always'));
  });

  it('answers only when the verdict arrives; the turn waits meanwhile', async () => {
    const held = heldVerdict();
    const t = setup({}, {}, held.permissions);
    await handshake(t);
    t.send('USE_TOOL');
    t.feed(permissionRequest(0, TOUCH));
    await nextTurn();
    expect(t.asks).toHaveLength(1);
    expect(t.written.filter((m) => m.id === 0)).toEqual([]);
    expect(t.turns.current?.id).toBe('turn-1');
    expect(t.events.map((e) => e.type)).toEqual(['TURN_STARTED', 'TOOL_CALL']);
    held.give({ decision: 'allow_once', decidedBy: 'caller', reason: '' });
    await nextTurn();
    expect(t.last()).toEqual(selected(0, 'once'));
    expect(t.turns.current?.id).toBe('turn-1');
  });

  it('answers "cancelled" once the turn is interrupted, even when the verdict was allow', async () => {
    const held = heldVerdict();
    const t = setup({}, {}, held.permissions);
    await handshake(t);
    t.send('USE_TOOL');
    t.feed(permissionRequest(0, TOUCH));
    await nextTurn();
    const r = t.interrupt();
    expect(t.last()).toMatchObject({ method: 'session/cancel' });
    held.give({ decision: 'allow_once', decidedBy: 'caller', reason: '' });
    await nextTurn();
    expect(t.last()).toEqual(cancelled(0));
    t.feed({ jsonrpc: '2.0', id: 3, result: { stopReason: 'cancelled' } });
    expect(await r).toEqual({ interrupted: true, turnId: 'turn-1' });
  });

  it('answers "cancelled" at once, without asking, to a request that comes after the interrupt', async () => {
    // A gate that never answers: only an answer given without asking can reach the agent.
    const t = setup({}, {}, () => new Promise(() => {}));
    await handshake(t);
    t.send('USE_TOOL');
    void t.interrupt();
    t.feed(permissionRequest(1, { toolCallId: 't2' }));
    await nextTurn();
    expect(t.last()).toEqual(cancelled(1));
    expect(t.asks).toEqual([]);
    t.feed({ jsonrpc: '2.0', id: 3, result: { stopReason: 'cancelled' } });
  });
});

describe('AcpDriver and the bridge tool server', () => {
  const tools: ToolServer = {
    name: 'bridge',
    command: '/usr/bin/node',
    args: ['bridge', 'mcp'],
    tools: ['message_send', 'who'],
  };
  // opencode 1.18.33 and gemini 0.61.0 ask before each MCP tool call, kind "other".
  const call = (title: string) => ({
    toolCallId: 'toolu_fake_3',
    title,
    kind: 'other',
    rawInput: { to: 'reviewer', content: 'hi' },
  });

  it.each([
    ['opencode', 'bridge_message_send'],
    ['gemini', 'who (bridge MCP Server)'],
  ])('allows a call of its own tools without asking the session gate (%s)', async (_, title) => {
    const t = setup({}, {}, 'deny', undefined, tools);
    await handshake(t);
    t.send('BRIDGE_TOOL');
    t.feed(permissionRequest(0, call(title)));
    await nextTurn();
    expect(t.last()).toEqual(selected(0, 'once'));
    expect(t.asks).toEqual([]);
  });

  it('asks as for any tool when the name is not one of its tools, or the session has none', async () => {
    const t = setup({}, {}, 'deny', undefined, tools);
    await handshake(t);
    t.send('BRIDGE_TOOL');
    t.feed(
      permissionRequest(0, call('bridge_rm')),
      permissionRequest(1, call('other_who')),
      permissionRequest(2, call('who (other MCP Server)')),
    );
    await nextTurn();
    expect(t.asks.map((a) => a.summary)).toEqual([
      'bridge_rm',
      'other_who',
      'who (other MCP Server)',
    ]);
    expect(t.written.slice(-3)).toEqual([0, 1, 2].map((id) => selected(id, 'reject')));

    const bare = setup();
    await handshake(bare);
    bare.send('BRIDGE_TOOL');
    bare.feed(permissionRequest(0, call('bridge_message_send')));
    await nextTurn();
    expect(bare.last()).toEqual(selected(0, 'reject'));
    expect(bare.asks).toHaveLength(1);
  });
});

describe('AcpDriver answers the agent', () => {
  it('refuses fs/* and terminal/* (no such capability was advertised) and unknown methods', async () => {
    const t = setup();
    await handshake(t);
    t.feed({ jsonrpc: '2.0', id: 5, method: 'fs/read_text_file', params: { path: '/etc/passwd' } });
    t.feed({ jsonrpc: '2.0', id: 6, method: 'terminal/create', params: { command: 'sh' } });
    t.feed({ jsonrpc: '2.0', id: 7, method: 'x/unknown' });
    await nextTurn();
    expect(t.written.slice(-3)).toEqual([
      {
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: -32601,
          message:
            'fs/read_text_file is not supported: this client offers no file system or terminal access',
        },
      },
      {
        jsonrpc: '2.0',
        id: 6,
        error: {
          code: -32601,
          message:
            'terminal/create is not supported: this client offers no file system or terminal access',
        },
      },
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32601, message: 'x/unknown is not supported by this client' },
      },
    ]);
  });

  it('keeps JSON that is not JSON-RPC as STDOUT and ignores updates of other sessions', async () => {
    const t = setup();
    await handshake(t);
    t.feed({ hello: 'world' });
    t.feed({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'other',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } },
      },
    });
    expect(t.events).toEqual([{ type: 'STDOUT', stream: 'stdout', text: '{"hello":"world"}' }]);
  });
});

describe('AcpDriver interrupts at every point of a turn', () => {
  const cancels = (t: ReturnType<typeof setup>) =>
    t.written.filter((m) => m.method === 'session/cancel');

  it('right at TURN_STARTED, before the agent said anything: session/cancel goes out at once', async () => {
    const t = setup();
    await handshake(t);
    t.send('HANG');
    expect(t.events.map((e) => e.type)).toEqual(['TURN_STARTED']);
    const r = t.interrupt();
    expect(cancels(t)).toHaveLength(1);
    t.feed({ jsonrpc: '2.0', id: 3, result: { stopReason: 'cancelled' } });
    expect(await r).toEqual({ interrupted: true, turnId: 'turn-1' });
  });

  it('a turn the agent ends on its own (end_turn) was not interrupted, whatever was asked', async () => {
    const t = setup();
    await handshake(t);
    t.send('hello');
    t.feed(O5_HANG_CHUNK);
    const r = t.interrupt();
    t.feed({ jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } });
    expect(await r).toEqual({ interrupted: false, turnId: 'turn-1' });
    expect(t.events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      text: 'end_turn',
      data: { stop_reason: 'end_turn', interrupted: false },
    });
  });

  it('a prompt that fails after the cancel is the interrupt, not an AGENT_ERROR', async () => {
    const t = setup();
    await handshake(t);
    t.send('HANG');
    const r = t.interrupt();
    t.feed({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'aborted' } });
    expect(await r).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(t.events.some((e) => e.type === 'AGENT_ERROR')).toBe(false);
    expect(t.events.at(-1)).toMatchObject({
      data: { stop_reason: 'cancelled', interrupted: true },
    });
  });

  it('after the turn ended: nothing to interrupt, nothing written', async () => {
    const t = setup();
    await handshake(t);
    t.send('hello');
    t.feed({ jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } });
    await nextTurn();
    expect(await t.interrupt()).toEqual({ interrupted: false, turnId: '' });
    expect(cancels(t)).toEqual([]);
  });
});

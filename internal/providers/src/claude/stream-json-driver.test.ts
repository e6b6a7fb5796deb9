import { readFileSync } from 'node:fs';
import { nextTurn } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../contract/json-value.js';
import { PERMISSION_DECISIONS, type PermissionVerdict } from '../contract/permission.js';
import { driverHarness, type HarnessOptions } from '../testing/driver-harness.js';
import { StreamJsonDriver } from './stream-json-driver.js';

// Lines captured from the real claude 2.1.197 CLI.
const capture = (name: string) =>
  readFileSync(new URL(`./testdata/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as JsonObject);

function setup(permissions: HarnessOptions['permissions'] = 'deny') {
  return driverHarness((ctx) => new StreamJsonDriver(ctx), { permissions });
}

/** claude's `can_use_tool` control request for a Bash command. */
const canUseTool = (requestId: string, extra: JsonObject = {}): JsonObject => ({
  type: 'control_request',
  request_id: requestId,
  request: {
    subtype: 'can_use_tool',
    tool_name: 'Bash',
    input: { command: 'touch created.txt' },
    tool_use_id: 'toolu_1',
    ...extra,
  },
});
const answered = (requestId: string, response: JsonObject) => ({
  type: 'control_response',
  response: { subtype: 'success', request_id: requestId, response },
});

describe('StreamJsonDriver on real claude output', () => {
  it('completes the initialize handshake on the CLI control_response', async () => {
    const { driver, written } = setup();
    const done = driver.handshake();
    expect(written).toEqual([
      { type: 'control_request', request_id: 'req_1', request: { subtype: 'initialize' } },
    ]);
    driver.onMessage(capture('initialize.jsonl')[0]!);
    await expect(done).resolves.toBeUndefined();
  });

  it('maps a text turn: deltas, the message, and TURN_COMPLETED with usage and cost', async () => {
    const { driver, events, written, send, recordedAt } = setup();
    send('hello');
    // The input is recorded before anything of its turn, TURN_STARTED right after.
    expect(recordedAt).toEqual([0]);
    expect(events.map((e) => e.type)).toEqual(['TURN_STARTED']);
    expect(written).toEqual([{ type: 'user', message: { role: 'user', content: 'hello' } }]);
    for (const line of capture('text-turn.jsonl')) driver.onMessage(line);
    expect(events.map((e) => [e.type, e.text])).toEqual([
      ['TURN_STARTED', ''],
      ['AGENT_MESSAGE_DELTA', 'Hello'],
      ['AGENT_MESSAGE_DELTA', ' from'],
      ['AGENT_MESSAGE_DELTA', ' fake'],
      ['AGENT_MESSAGE_DELTA', ' model.'],
      ['AGENT_MESSAGE', 'Hello from fake model.'],
      ['TURN_COMPLETED', 'completed'],
    ]);
    expect(new Set(events.map((e) => e.turnId))).toEqual(new Set(['turn-1']));
    expect(events.at(-1)?.data).toMatchObject({
      status: 'completed',
      is_error: false,
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      total_cost_usd: 0.000235,
      duration_ms: 483,
      num_turns: 1,
      stop_reason: 'end_turn',
      model: 'claude-opus-4-8[1m]',
      claude_code_version: '2.1.197',
    });
  });

  it('reports each api_retry as an AGENT_ERROR that says which attempt', async () => {
    const { driver, events, send } = setup();
    send('hi');
    for (const line of capture('api-retry.jsonl')) driver.onMessage(line);
    const retries = events.filter((e) => e.type === 'AGENT_ERROR');
    expect(retries).toHaveLength(9);
    expect(retries[0]).toMatchObject({
      text: 'claude API request failed: unknown; retry 1/10',
      turnId: 'turn-1',
      data: { reason: 'api_retry', attempt: 1, max_retries: 10 },
    });
  });

  it('judges an invalid key by is_error, not subtype, and reports it once', async () => {
    const { driver, events, send } = setup();
    send('hi');
    for (const line of capture('invalid-key.jsonl')) driver.onMessage(line);
    expect(events.map((e) => e.type)).toEqual(['TURN_STARTED', 'AGENT_ERROR', 'TURN_COMPLETED']);
    expect(events[1]).toMatchObject({
      text: 'Invalid API key · Fix external API key',
      error: 'authentication_failed',
    });
    expect(events[2]).toMatchObject({
      error: 'Invalid API key · Fix external API key',
      data: { status: 'failed', subtype: 'success', is_error: true },
    });
  });

  it('"Not logged in" without credentials: one AGENT_ERROR, a failed turn, every turn', async () => {
    const { driver, events, send } = setup();
    send('hi');
    for (const line of capture('not-logged-in.jsonl')) driver.onMessage(line);
    expect(events.map((e) => [e.type, e.turnId])).toEqual([
      ['TURN_STARTED', 'turn-1'],
      ['AGENT_ERROR', 'turn-1'],
      ['TURN_COMPLETED', 'turn-1'],
    ]);
    expect(events[1]).toMatchObject({
      text: 'Not logged in · Please run /login',
      error: 'authentication_failed',
    });
    expect(events[2]).toMatchObject({
      done: true,
      error: 'Not logged in · Please run /login',
      data: { status: 'failed', is_error: true, subtype: 'success', total_cost_usd: 0 },
    });
  });

  it('maps a tool turn: tool_use, the permission prompt asked of the gate, and the tool_result', async () => {
    const { driver, events, written, send, asks } = setup('allow_once');
    send('go');
    for (const line of capture('tool-turn.jsonl')) driver.onMessage(line);
    await nextTurn();
    const input = { command: 'touch created.txt', description: 'create file' };
    expect(events.slice(1)).toEqual([
      {
        type: 'TOOL_CALL',
        stream: 'system',
        text: 'Bash',
        turnId: 'turn-1',
        data: { tool_use_id: 'toolu_1', name: 'Bash', input },
      },
      {
        type: 'TOOL_RESULT',
        stream: 'system',
        text: 'hi',
        turnId: 'turn-1',
        data: {
          tool_use_id: 'toolu_1',
          is_error: false,
          tool_use_result: { stdout: 'hi', stderr: '', interrupted: false },
        },
      },
    ]);
    expect(asks).toEqual([
      {
        tool: 'Bash',
        summary: 'touch created.txt',
        input: { command: 'touch created.txt' },
        options: PERMISSION_DECISIONS,
        toolCallId: 'toolu_1',
        turnId: 'turn-1',
        details: { blocked_path: '/repo/created.txt' },
      },
    ]);
    // The answer echoes the input back unchanged as updatedInput.
    expect(written.at(-1)).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: '858a…',
        response: { behavior: 'allow', updatedInput: { command: 'touch created.txt' } },
      },
    });
  });

  it('ignores lines it has no event for: status, other stream events, replays, unknown types', async () => {
    const { driver, events, send } = setup();
    send('hi');
    const c3 = capture('initialize.jsonl');
    for (const line of [
      ...c3.slice(1),
      { type: 'keep_alive' },
      { type: 'rate_limit_event', rate_limit_info: {} },
      { type: 'stream_event', event: { type: 'message_stop' } },
      {
        type: 'stream_event',
        event: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta' } },
      },
      { type: 'user', message: { role: 'user', content: 'hi' }, isReplay: true },
      { type: 'something_new', x: 1 },
    ] as JsonObject[]) {
      driver.onMessage(line);
    }
    expect(events.map((e) => e.type)).toEqual(['TURN_STARTED']);
  });

  it('answers an unknown control request from the CLI with an error, not silence', () => {
    const { driver, written } = setup();
    driver.onMessage({ type: 'control_request', request_id: 'r9', request: { subtype: 'mcp_x' } });
    expect(written).toEqual([
      {
        type: 'control_response',
        response: { subtype: 'error', request_id: 'r9', error: 'unsupported: mcp_x' },
      },
    ]);
  });

  it.each([
    ['allow_once', { behavior: 'allow', updatedInput: { command: 'touch created.txt' } }],
    ['allow_session', { behavior: 'allow', updatedInput: { command: 'touch created.txt' } }],
    ['deny', { behavior: 'deny', message: "denied by the bridge's policy" }],
  ] as const)(
    'answers can_use_tool decided %s, and emits no event of its own',
    async (decision, response) => {
      const { driver, events, written, send } = setup(decision);
      send('go');
      driver.onMessage(canUseTool('858a'));
      await nextTurn();
      expect(written.at(-1)).toEqual(answered('858a', response));
      expect(events.map((e) => e.type)).toEqual(['TURN_STARTED']);
    },
  );

  it('tells claude who denied and why', async () => {
    const { driver, written, send } = setup(async () => ({
      decision: 'deny',
      decidedBy: 'caller',
      reason: 'not on main',
    }));
    send('go');
    driver.onMessage(canUseTool('r1'));
    await nextTurn();
    expect(written.at(-1)).toEqual(
      answered('r1', { behavior: 'deny', message: 'denied by the bridge client: not on main' }),
    );
  });

  it('asks without turn or tool call id when claude gives none', async () => {
    const { driver, asks } = setup();
    driver.onMessage(canUseTool('r1', { tool_use_id: undefined, input: { file_path: '/x' } }));
    await nextTurn();
    expect(asks).toEqual([
      { tool: 'Bash', summary: '/x', input: { file_path: '/x' }, options: PERMISSION_DECISIONS },
    ]);
  });

  it('answers only when the verdict arrives; the turn waits meanwhile', async () => {
    let give: (v: PermissionVerdict) => void = () => {};
    const verdict = new Promise<PermissionVerdict>((r) => {
      give = r;
    });
    const { driver, turns, written, send, asks } = setup(() => verdict);
    send('go');
    driver.onMessage(canUseTool('r1'));
    await nextTurn();
    expect(asks).toHaveLength(1);
    expect(written.map((m) => m.type)).toEqual(['user']);
    expect(turns.current?.id).toBe('turn-1');
    give({ decision: 'allow_session', decidedBy: 'caller', reason: '' });
    await nextTurn();
    expect(written.at(-1)).toEqual(
      answered('r1', { behavior: 'allow', updatedInput: { command: 'touch created.txt' } }),
    );
    expect(turns.current?.id).toBe('turn-1');
  });

  it('queues an input sent during a turn and starts it after the result', () => {
    const { driver, written, send } = setup();
    send('first');
    send('second');
    expect(written).toHaveLength(1);
    driver.onMessage({ type: 'result', subtype: 'success', is_error: false, result: 'ok' });
    expect(written.at(-1)).toEqual({
      type: 'user',
      message: { role: 'user', content: 'second' },
    });
  });

  it('interrupt: acknowledged, the result ends the turn as interrupted without an AGENT_ERROR', async () => {
    const { driver, events, written, send, interrupt } = setup();
    expect(await interrupt()).toEqual({ interrupted: false, turnId: '' });
    send('HANG');
    const res = interrupt();
    const req = written.at(-1) as { request_id: string; request: { subtype: string } };
    expect(req.request.subtype).toBe('interrupt');
    driver.onMessage({
      type: 'control_response',
      response: { subtype: 'success', request_id: req.request_id },
    });
    driver.onMessage({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
    });
    expect(await res).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(events.filter((e) => e.type === 'AGENT_ERROR')).toEqual([]);
    expect(events.at(-1)?.data).toMatchObject({ status: 'interrupted', interrupted: true });
  });

  it('interrupt that loses the race: the turn ends on its own, so it was not interrupted', async () => {
    const { driver, events, written, send, interrupt } = setup();
    send('hi');
    const res = interrupt();
    const req = written.at(-1) as { request_id: string };
    for (const line of capture('text-turn.jsonl')) driver.onMessage(line);
    driver.onMessage({
      type: 'control_response',
      response: { subtype: 'success', request_id: req.request_id },
    });
    expect(await res).toEqual({ interrupted: false, turnId: 'turn-1' });
    expect(events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      text: 'completed',
      data: { status: 'completed', interrupted: false },
    });
  });

  it('interrupt refused by claude: interrupted false at once, and the turn goes on', async () => {
    const { driver, events, written, send, interrupt } = setup();
    send('HANG');
    const res = interrupt();
    const req = written.at(-1) as { request_id: string };
    driver.onMessage({
      type: 'control_response',
      response: { subtype: 'error', request_id: req.request_id, error: 'no turn' },
    });
    expect(await res).toEqual({ interrupted: false, turnId: 'turn-1' });
    // A failure that ends the turn afterwards is a failure, not the withdrawn interrupt.
    driver.onMessage({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      data: { status: 'failed', interrupted: false },
    });
  });
});

import { readFileSync } from 'node:fs';
import { nextTurn } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { InputClosedError } from '../contract/errors.js';
import type { AgentEvent } from '../contract/events.js';
import type { JsonObject } from '../contract/json-value.js';
import { PERMISSION_DECISIONS, type PermissionVerdict } from '../contract/permission.js';
import { driverHarness, type HarnessOptions } from '../testing/driver-harness.js';
import { CodexDriver } from './codex-driver.js';

// The JSON lines of a real `codex app-server` 0.169.0 session (initialize,
// a USE_TOOL turn with a command approval, a HANG turn interrupted), minus
// the two lines the capture cut short.
const CAPTURE = readFileSync(
  new URL('./testdata/app-server-session.jsonl', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as JsonObject);
const THREAD = '01a20241-13b8-7b72-be97-1ae208529b95';
const TURN1 = '01a20241-13d7-75d0-8340-472de7384f7b';
const TURN2 = '01a20241-157b-7862-a3fe-c25ad8e869e4';

/** The captured answer to capture request `id`, re-addressed to our request `ours`. */
function answer(id: number, ours: number) {
  const line = CAPTURE.find((m) => m.id === id && 'result' in m);
  if (!line) throw new Error(`no captured answer ${id}`);
  return { ...line, id: ours };
}
/** Captured notifications and server requests from `from` (inclusive) up to `to` (exclusive). */
function between(
  from: (m: Record<string, unknown>) => boolean,
  to: (m: Record<string, unknown>) => boolean,
) {
  const start = CAPTURE.findIndex(from);
  const end = CAPTURE.findIndex((m, i) => i > start && to(m));
  return CAPTURE.slice(start, end === -1 ? undefined : end).filter((m) => 'method' in m);
}
const isTurnStartAnswer = (n: number) => (m: Record<string, unknown>) =>
  m.id === n && 'result' in m;

function harness(
  permissions: HarnessOptions['permissions'] = 'deny',
  options: Record<string, string> = {},
) {
  const h = driverHarness((ctx) => new CodexDriver(ctx, '1.2.3'), {
    permissions,
    options,
    repoPath: '/repos/app',
    interruptWaitMs: 200,
  });
  const lastRequest = (method: string) => {
    const r = [...h.written].reverse().find((m) => m.method === method);
    if (!r) throw new Error(`no ${method} written`);
    return r as { id: number; method: string; params: Record<string, unknown> };
  };
  const start = async () => {
    const hs = h.driver.handshake();
    h.feed(answer(1, lastRequest('initialize').id));
    await nextTurn();
    h.feed({
      id: lastRequest('thread/start').id,
      result: { thread: { id: THREAD, model: 'fake-model', modelProvider: 'fake' } },
    });
    await hs;
  };
  return { ...h, lastRequest, start };
}

const types = (events: AgentEvent[]) => events.map((e) => e.type);

describe('CodexDriver handshake', () => {
  it('initializes, notifies initialized and opens a thread in the repo with safe defaults', async () => {
    const h = harness();
    await h.start();
    expect(h.written.slice(0, 3)).toEqual([
      {
        id: 1,
        method: 'initialize',
        params: {
          clientInfo: { name: 'agent-bridge', title: null, version: '1.2.3' },
          capabilities: null,
        },
      },
      { method: 'initialized' },
      {
        id: 2,
        method: 'thread/start',
        params: { cwd: '/repos/app', approvalPolicy: 'untrusted', sandbox: 'read-only' },
      },
    ]);
    expect(h.written.every((m) => !('jsonrpc' in m))).toBe(true);
    expect(h.events).toEqual([
      {
        type: 'STDOUT',
        stream: 'system',
        text: `codex thread ${THREAD}`,
        data: { thread_id: THREAD, model: 'fake-model', model_provider: 'fake' },
      },
    ]);
  });

  it('passes the resolved options to thread/start', async () => {
    const h = harness('deny', {
      model: 'gpt-5.1-codex',
      sandbox: 'workspace-write',
      approval_policy: 'on-request',
    });
    await h.start();
    expect(h.lastRequest('thread/start').params).toEqual({
      cwd: '/repos/app',
      approvalPolicy: 'on-request',
      sandbox: 'workspace-write',
      model: 'gpt-5.1-codex',
    });
  });

  it('fails the handshake when codex refuses initialize', async () => {
    const h = harness();
    const hs = h.driver.handshake();
    h.feed({ id: 1, error: { code: -32600, message: 'Not initialized' } });
    await expect(hs).rejects.toThrow('initialize: Not initialized');
  });

  it('keeps captured warnings as system STDERR events, not errors', async () => {
    const h = harness();
    await h.start();
    h.feed(...CAPTURE.filter((m) => m.method === 'configWarning' || m.method === 'warning'));
    const warnings = h.events.filter((e) => e.type === 'STDERR');
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatchObject({
      stream: 'system',
      text: expect.stringContaining('Codex could not find bubblewrap on PATH'),
      data: { warning: 'configWarning' },
    });
    expect(warnings[1]).toMatchObject({
      text: expect.stringContaining('Model metadata for `fake-model` not found'),
      data: { warning: 'warning' },
    });
    expect(h.events.some((e) => e.type === 'AGENT_ERROR')).toBe(false);
  });

  it('does not tag a warning that comes before codex names the turn with a provisional turn id', async () => {
    const h = harness();
    await h.start();
    h.events.length = 0;
    h.send('hello');
    h.feed({ method: 'warning', params: { threadId: 't', message: 'Model metadata not found' } });
    expect(h.events.find((e) => e.type === 'STDERR')?.turnId).toBeUndefined();
  });
});

describe('CodexDriver turns (captured app-server session)', () => {
  const isApproval = (m: Record<string, unknown>) =>
    m.method === 'item/commandExecution/requestApproval';

  /** The captured USE_TOOL turn, fed up to (excluding) the line `until` matches, or whole. */
  async function toolTurn(
    permissions: HarnessOptions['permissions'],
    until: (m: Record<string, unknown>) => boolean = isTurnStartAnswer(6),
  ) {
    const h = harness(permissions);
    await h.start();
    h.events.length = 0;
    h.send('please USE_TOOL');
    const req = h.lastRequest('turn/start');
    expect(req.params).toEqual({
      threadId: THREAD,
      input: [{ type: 'text', text: 'please USE_TOOL', text_elements: [] }],
    });
    expect(h.turns.current?.id).toBe('turn-1');
    h.feed(answer(5, req.id));
    await nextTurn();
    h.feed(...between(isTurnStartAnswer(5), until));
    await nextTurn();
    return h;
  }

  it('maps a tool turn: TOOL_CALL, TOOL_RESULT, deltas, message, usage, completion', async () => {
    const h = await toolTurn('allow_once');
    expect(types(h.events)).toEqual([
      'TURN_STARTED',
      'TOOL_CALL',
      'TOOL_RESULT',
      'AGENT_MESSAGE_DELTA',
      'AGENT_MESSAGE_DELTA',
      'AGENT_MESSAGE_DELTA',
      'AGENT_MESSAGE',
      'TURN_COMPLETED',
      'STDERR',
    ]);
    expect(h.events.slice(0, -1).every((e) => e.turnId === TURN1)).toBe(true);
    const [started, call, result] = h.events;
    expect(started).toMatchObject({ data: { thread_id: THREAD } });
    expect(call).toMatchObject({
      text: "/bin/bash -lc 'touch codex_created.txt'",
      data: {
        tool_call_id: 'call_5',
        name: 'commandExecution',
        input: { command: "/bin/bash -lc 'touch codex_created.txt'", cwd: '<tmpdir>' },
      },
    });
    expect(result).toMatchObject({
      data: { tool_call_id: 'call_5', status: 'completed', exit_code: 0, is_error: false },
    });
    expect(h.events.filter((e) => e.type === 'AGENT_MESSAGE_DELTA').map((e) => e.text)).toEqual([
      'Tool',
      ' ran',
      ' fine.',
    ]);
    expect(h.events[6]).toMatchObject({ text: 'Tool ran fine.', data: { item_id: 'msg_6' } });
    expect(h.events[7]).toMatchObject({
      text: 'completed',
      done: true,
      data: {
        status: 'completed',
        interrupted: false,
        duration_ms: 408,
        usage: {
          total_tokens: 32,
          input_tokens: 22,
          cached_input_tokens: 0,
          cache_write_input_tokens: 0,
          output_tokens: 10,
          reasoning_output_tokens: 0,
        },
        thread_usage: { total_tokens: 32 },
        context_window: 258400,
      },
    });
    // The approval was answered on the request's own id.
    expect(h.written).toContainEqual({ id: 0, result: { decision: 'accept' } });
    expect(h.turns.current).toBeUndefined();
  });

  it('asks the gate about the command approval', async () => {
    const h = await toolTurn('deny');
    expect(h.asks).toEqual([
      {
        tool: 'commandExecution',
        summary: "/bin/bash -lc 'touch codex_created.txt'",
        input: { command: "/bin/bash -lc 'touch codex_created.txt'", cwd: '<tmpdir>' },
        options: PERMISSION_DECISIONS,
        toolCallId: 'call_5',
        turnId: TURN1,
        details: { approval_request: 'item/commandExecution/requestApproval' },
      },
    ]);
  });

  it.each([
    ['allow_once', 'accept'],
    ['allow_session', 'accept'],
    // codex 0.169 offers no "decline" for commands: a denial cancels.
    ['deny', 'cancel'],
  ] as const)('answers %s as %s', async (decision, answer) => {
    const h = await toolTurn(decision);
    expect(h.written).toContainEqual({ id: 0, result: { decision: answer } });
  });

  it('answers only when the verdict arrives; the turn waits meanwhile', async () => {
    let give: (v: PermissionVerdict) => void = () => {};
    const verdict = new Promise<PermissionVerdict>((r) => {
      give = r;
    });
    const h = await toolTurn(() => verdict, isApproval);
    h.feed(CAPTURE.find(isApproval));
    await nextTurn();
    expect(h.asks).toHaveLength(1);
    expect(h.written.filter((m) => m.id === 0)).toEqual([]);
    expect(h.turns.current?.id).toBe(TURN1);
    give({ decision: 'allow_once', decidedBy: 'caller', reason: '' });
    await nextTurn();
    expect(h.written.at(-1)).toEqual({ id: 0, result: { decision: 'accept' } });
    expect(h.turns.current?.id).toBe(TURN1);
  });

  it('answers a user-input request with no answers, without asking the gate', async () => {
    const h = harness('allow_once');
    await h.start();
    h.feed({
      id: 4,
      method: 'item/tool/requestUserInput',
      params: { itemId: 'q', questions: [{ id: 'q1' }] },
    });
    await nextTurn();
    expect(h.written.at(-1)).toEqual({ id: 4, result: { answers: {} } });
    expect(h.asks).toEqual([]);
    expect(h.events.at(-1)).toMatchObject({
      type: 'TOOL_CALL',
      data: { name: 'requestUserInput', decision: 'no answer' },
    });
  });

  it('queues input while a turn runs and starts it when the turn completes', async () => {
    const h = harness();
    await h.start();
    h.send('first');
    h.send('second');
    expect(h.written.filter((m) => m.method === 'turn/start')).toHaveLength(1);
    h.feed(answer(5, h.lastRequest('turn/start').id));
    await nextTurn();
    h.feed(CAPTURE.find((m) => m.method === 'turn/completed'));
    const starts = h.written.filter((m) => m.method === 'turn/start');
    expect(starts).toHaveLength(2);
    expect(starts[1]?.params).toMatchObject({ input: [{ text: 'second' }] });
  });

  it('interrupts the running turn with turn/interrupt and reports it once codex ends it', async () => {
    const h = harness();
    await h.start();
    h.send('second turn HANG');
    h.feed(answer(6, h.lastRequest('turn/start').id));
    await nextTurn();
    h.feed(...between(isTurnStartAnswer(6), (m) => m.id === 7));
    h.events.length = 0;
    const interrupted = h.interrupt();
    await nextTurn();
    expect(h.lastRequest('turn/interrupt').params).toEqual({ threadId: THREAD, turnId: TURN2 });
    h.feed(answer(7, h.lastRequest('turn/interrupt').id));
    h.feed(...CAPTURE.slice(CAPTURE.findIndex((m) => m.id === 7)).filter((m) => 'method' in m));
    expect(await interrupted).toEqual({ interrupted: true, turnId: TURN2 });
    expect(h.events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      turnId: TURN2,
      // This driver saw no earlier turn, so the whole thread total is this turn's.
      data: {
        status: 'interrupted',
        interrupted: true,
        duration_ms: 812,
        usage: { total_tokens: 32 },
      },
    });
    // After the turn ended there is nothing to interrupt.
    expect(await h.interrupt()).toEqual({ interrupted: false, turnId: '' });
  });

  it('reports a failed turn as AGENT_ERROR and TURN_COMPLETED with the error', async () => {
    const h = harness();
    await h.start();
    h.send('hi');
    h.feed({
      id: h.lastRequest('turn/start').id,
      result: { turn: { id: 't1', status: 'inProgress' } },
    });
    await nextTurn();
    h.events.length = 0;
    h.feed(
      {
        method: 'error',
        params: {
          error: { message: 'unexpected status 401 Unauthorized', codexErrorInfo: 'unauthorized' },
          willRetry: false,
          threadId: THREAD,
          turnId: 't1',
        },
      },
      {
        method: 'turn/completed',
        params: {
          threadId: THREAD,
          turn: {
            id: 't1',
            status: 'failed',
            error: { message: 'unexpected status 401 Unauthorized' },
          },
        },
      },
    );
    expect(h.events).toEqual([
      expect.objectContaining({
        type: 'AGENT_ERROR',
        text: 'codex: unexpected status 401 Unauthorized',
        error: 'unexpected status 401 Unauthorized',
        data: expect.objectContaining({ will_retry: false, codex_error_info: 'unauthorized' }),
      }),
      expect.objectContaining({
        type: 'AGENT_ERROR',
        text: 'codex turn failed: unexpected status 401 Unauthorized',
      }),
      expect.objectContaining({
        type: 'TURN_COMPLETED',
        error: 'unexpected status 401 Unauthorized',
        data: expect.objectContaining({ status: 'failed', usage: null }),
      }),
    ]);
  });

  it('turns a refused turn/start into AGENT_ERROR and stays usable', async () => {
    const h = harness();
    await h.start();
    h.send('x');
    h.feed({ id: h.lastRequest('turn/start').id, error: { code: -32600, message: 'busy' } });
    await nextTurn();
    expect(h.events.at(-1)).toMatchObject({ type: 'AGENT_ERROR', turnId: 'turn-1' });
    expect(h.turns.current).toBeUndefined();
    h.send('y');
    expect(h.written.filter((m) => m.method === 'turn/start')).toHaveLength(2);
  });

  it('throws InputClosedError at once when the agent no longer reads', async () => {
    const h = harness();
    await h.start();
    h.closeInput();
    expect(() => h.send('x')).toThrow(InputClosedError);
    expect(h.turns.current).toBeUndefined();
    h.exit();
    expect(() => h.send('x')).toThrow(InputClosedError);
  });

  it('refuses unknown server requests and records them', async () => {
    const h = harness();
    await h.start();
    h.feed({ id: 9, method: 'account/chatgptAuthTokens/refresh', params: {} });
    await nextTurn();
    expect(h.written.at(-1)).toMatchObject({ id: 9, error: { code: -32601 } });
    expect(h.events.at(-1)).toMatchObject({
      type: 'AGENT_ERROR',
      data: { method: 'account/chatgptAuthTokens/refresh' },
    });
  });

  it('keeps JSON that is not JSON-RPC as STDOUT', async () => {
    const h = harness();
    await h.start();
    h.feed({ hello: 'world' });
    expect(h.events.at(-1)).toEqual({
      type: 'STDOUT',
      stream: 'stdout',
      text: '{"hello":"world"}',
    });
  });
});

describe('CodexDriver interrupts at every point of a turn', () => {
  const started = (id: string) => ({
    method: 'turn/started',
    params: { threadId: THREAD, turn: { id } },
  });
  const completed = (id: string, status: string) => ({
    method: 'turn/completed',
    params: { threadId: THREAD, turn: { id, status, durationMs: 5 } },
  });
  const interruptsWritten = (h: ReturnType<typeof harness>) =>
    h.written.filter((m) => m.method === 'turn/interrupt');

  /** A turn that codex has answered (named) but not yet started. */
  async function named() {
    const h = harness();
    await h.start();
    h.events.length = 0;
    h.send('HANG');
    h.feed({
      id: h.lastRequest('turn/start').id,
      result: { turn: { id: 't1', status: 'inProgress' } },
    });
    await nextTurn();
    return h;
  }

  it('before codex answers turn/start: held, then delivered at turn/started, and the turn ends interrupted', async () => {
    const h = harness();
    await h.start();
    h.send('HANG');
    const res = h.interrupt();
    h.feed({
      id: h.lastRequest('turn/start').id,
      result: { turn: { id: 't1', status: 'inProgress' } },
    });
    await nextTurn();
    // Codex would answer "no active turn to interrupt" before it has started the turn.
    expect(interruptsWritten(h)).toEqual([]);
    h.feed(started('t1'));
    expect(interruptsWritten(h)).toHaveLength(1);
    expect(h.lastRequest('turn/interrupt').params).toEqual({ threadId: THREAD, turnId: 't1' });
    h.feed({ id: h.lastRequest('turn/interrupt').id, result: {} }, completed('t1', 'interrupted'));
    expect(await res).toEqual({ interrupted: true, turnId: 't1' });
    expect(h.events.at(-1)).toMatchObject({
      type: 'TURN_COMPLETED',
      turnId: 't1',
      data: { status: 'interrupted', interrupted: true },
    });
  });

  it('right at TURN_STARTED (named, not yet started): held until turn/started', async () => {
    const h = await named();
    expect(h.events.map((e) => [e.type, e.turnId])).toEqual([['TURN_STARTED', 't1']]);
    const res = h.interrupt();
    await nextTurn();
    expect(interruptsWritten(h)).toEqual([]);
    h.feed(started('t1'));
    h.feed({ id: h.lastRequest('turn/interrupt').id, result: {} }, completed('t1', 'interrupted'));
    expect(await res).toEqual({ interrupted: true, turnId: 't1' });
  });

  it('mid-stream: delivered at once', async () => {
    const h = await named();
    h.feed(started('t1'), {
      method: 'item/agentMessage/delta',
      params: { threadId: THREAD, turnId: 't1', itemId: 'm', delta: 'thinking' },
    });
    const res = h.interrupt();
    expect(interruptsWritten(h)).toHaveLength(1);
    h.feed({ id: h.lastRequest('turn/interrupt').id, result: {} }, completed('t1', 'interrupted'));
    expect(await res).toEqual({ interrupted: true, turnId: 't1' });
  });

  it('refused while the turn runs: interrupted false at once, and its end does not claim it', async () => {
    const h = await named();
    h.feed(started('t1'));
    const res = h.interrupt();
    h.feed({
      id: h.lastRequest('turn/interrupt').id,
      error: { code: -32600, message: 'no active turn to interrupt' },
    });
    expect(await res).toEqual({ interrupted: false, turnId: 't1' });
    h.feed(completed('t1', 'completed'));
    expect(h.events.at(-1)).toMatchObject({ data: { status: 'completed', interrupted: false } });
  });

  it('racing the end: the turn completes on its own, so the answer is interrupted false', async () => {
    const h = await named();
    h.feed(started('t1'));
    const res = h.interrupt();
    h.feed(completed('t1', 'completed'));
    h.feed({
      id: h.lastRequest('turn/interrupt').id,
      error: { code: -32600, message: 'no active turn to interrupt' },
    });
    expect(await res).toEqual({ interrupted: false, turnId: 't1' });
    expect(h.events.at(-1)).toMatchObject({ data: { status: 'completed', interrupted: false } });
  });

  it('a turn codex never starts: interrupted false after the wait, and the held interrupt is withdrawn', async () => {
    const h = await named();
    expect(await h.interrupt()).toEqual({ interrupted: false, turnId: 't1' });
    h.feed(started('t1'));
    expect(interruptsWritten(h)).toEqual([]);
    h.feed(completed('t1', 'completed'));
    expect(h.events.at(-1)).toMatchObject({ data: { interrupted: false } });
  });

  it('concurrent interrupts share one turn/interrupt and one answer', async () => {
    const h = await named();
    h.feed(started('t1'));
    const a = h.interrupt();
    const b = h.interrupt();
    expect(interruptsWritten(h)).toHaveLength(1);
    h.feed({ id: h.lastRequest('turn/interrupt').id, result: {} }, completed('t1', 'interrupted'));
    expect(await a).toEqual({ interrupted: true, turnId: 't1' });
    expect(await b).toEqual({ interrupted: true, turnId: 't1' });
  });
});

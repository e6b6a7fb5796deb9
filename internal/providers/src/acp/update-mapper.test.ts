import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../contract/events.js';
import { UpdateMapper } from './update-mapper.js';

// Real lines of opencode 1.18.33 and gemini 0.61.0, with temporary paths written as <tmpdir>.
const O5_TOOL_TURN = [
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_2024400c0001y560tJyJXwOjs1","content":{"type":"text","text":"Running a command."}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_fake_10","title":"Bash","kind":"execute","status":"pending","locations":[{"path":"<tmpdir>"}],"rawInput":{"cwd":"<tmpdir>"}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_fake_10","status":"in_progress","kind":"execute","title":"touch created.txt","locations":[{"path":"<tmpdir>"}],"rawInput":{"command":"touch created.txt","description":"create file","cwd":"<tmpdir>"}}}}',
  'PERMISSION {"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","toolCall":{"toolCallId":"toolu_fake_10","title":"touch created.txt","kind":"execute","status":"pending","locations":[],"rawInput":{"command":"touch created.txt"}},"options":[{"optionId":"once","kind":"allow_once","name":"Allow once"},{"optionId":"always","kind":"allow_always","name":"Always allow"},{"optionId":"reject","kind":"reject_once","name":"Reject"}]}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_fake_10","status":"in_progress","kind":"execute","title":"touch created.txt","locations":[{"path":"<tmpdir>"}],"rawInput":{"command":"touch created.txt","description":"create file","cwd":"<tmpdir>"}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_fake_10","status":"completed","title":"touch created.txt","content":[{"type":"content","content":{"type":"text","text":"(no output)"}}],"rawOutput":{"output":"(no output)","metadata":{"output":"(no output)","exit":0,"truncated":false}}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_2024404c4001fhnArN7IlzRvrj","content":{"type":"text","text":"Tool"}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_2024404c4001fhnArN7IlzRvrj","content":{"type":"text","text":" ran"}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"ses_dfdbbff74ffeNpjE5DBefn5Y6q","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_2024404c4001fhnArN7IlzRvrj","content":{"type":"text","text":" fine."}}}}',
];
const O5_RESULT =
  '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":12,"outputTokens":7,"totalTokens":19},"_meta":{}}}';

const G3_TOOL_TURN = [
  'PERMISSION {"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"2a525bca-8312-4001-a217-2a9e43c497b3","options":[{"optionId":"proceed_always","name":"Allow for this session","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":{"toolCallId":"run_shell_command__run_shell_command_1795334454015_0","status":"pending","title":"touch gemini_created.txt","content":[{"type":"content","content":{"type":"text","text":"[current working directory <tmpdir>] (create file)"}}],"locations":[],"kind":"execute"}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"2a525bca-8312-4001-a217-2a9e43c497b3","update":{"sessionUpdate":"tool_call_update","toolCallId":"run_shell_command__run_shell_command_1795334454015_0","status":"completed","title":"touch gemini_created.txt","content":[],"locations":[],"kind":"execute"}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"2a525bca-8312-4001-a217-2a9e43c497b3","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Tool"}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"2a525bca-8312-4001-a217-2a9e43c497b3","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" ran"}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"2a525bca-8312-4001-a217-2a9e43c497b3","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" fine."}}}}',
];
const G3_RESULT =
  '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":26,"output_tokens":12},"model_usage":[{"model":"gemini-2.5-flash","token_count":{"input_tokens":26,"output_tokens":12}}]}}}}';

// claude-agent-acp (a1): empty chunks, usage_update with a cumulative cost.
const A1_TURN = [
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"5d94815d-642b-4ba6-8164-4bdac51ca45c","update":{"sessionUpdate":"usage_update","used":13,"size":1000000}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"5d94815d-642b-4ba6-8164-4bdac51ca45c","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"messageId":"msg_fake_14"}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"5d94815d-642b-4ba6-8164-4bdac51ca45c","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Tool"},"messageId":"msg_fake_14"}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"5d94815d-642b-4ba6-8164-4bdac51ca45c","update":{"sessionUpdate":"usage_update","used":19,"size":1000000}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"5d94815d-642b-4ba6-8164-4bdac51ca45c","update":{"sessionUpdate":"usage_update","used":19,"size":1000000,"cost":{"amount":0.000795,"currency":"USD"}}}}',
];
const A1_RESULT =
  '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":24,"outputTokens":27,"cachedReadTokens":0,"cachedWriteTokens":0,"totalTokens":51}}}';

// codex-acp (a3): a tool_call already in progress, completed by an update without output.
const A3_TOOL = [
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"01a20248-9934-7852-8399-3ea2e6674ea7","update":{"sessionUpdate":"tool_call","toolCallId":"call_11","name":"exec_command","kind":"execute","title":"touch codex_created.txt","status":"in_progress","content":[{"type":"terminal","terminalId":"call_11"}],"rawInput":{"command":"touch codex_created.txt","cwd":"<tmpdir>"},"_meta":{"terminal_info":{"cwd":"<tmpdir>","terminal_id":"call_11"}}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"01a20248-9934-7852-8399-3ea2e6674ea7","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_11","status":"completed","_meta":{"terminal_exit":{"exit_code":0,"signal":null,"terminal_id":"call_11"}}}}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"01a20248-9934-7852-8399-3ea2e6674ea7","update":{"sessionUpdate":"session_info_update","title":"please USE_TOOL"}}}',
];

/** Feeds captured lines to a mapper the way the driver does; `asked` gets what each permission request returned. */
function replay(lines: string[]) {
  const events: AgentEvent[] = [];
  const asked: unknown[] = [];
  const m = new UpdateMapper((e) => events.push(e));
  m.begin();
  for (const line of lines) {
    if (line.startsWith('PERMISSION ')) {
      const req = JSON.parse(line.slice(11));
      asked.push(m.permissionToolCall(req.params.toolCall, 't1'));
    } else m.update(JSON.parse(line).params.update, 't1');
  }
  return { m, events, asked };
}

const brief = (events: AgentEvent[]) => events.map((e) => [e.type, e.text]);

describe('UpdateMapper on captured opencode acp lines (o5)', () => {
  it('maps text, tool call and result, and ends each message when its id changes', () => {
    const { m, events } = replay(O5_TOOL_TURN);
    m.flush('t1');
    // The permission request is about a tool call already announced: no second TOOL_CALL.
    expect(brief(events)).toEqual([
      ['AGENT_MESSAGE_DELTA', 'Running a command.'],
      ['AGENT_MESSAGE', 'Running a command.'],
      ['TOOL_CALL', 'Bash'],
      ['TOOL_RESULT', '(no output)'],
      ['AGENT_MESSAGE_DELTA', 'Tool'],
      ['AGENT_MESSAGE_DELTA', ' ran'],
      ['AGENT_MESSAGE_DELTA', ' fine.'],
      ['AGENT_MESSAGE', 'Tool ran fine.'],
    ]);
    expect(events.every((e) => e.turnId === 't1')).toBe(true);
    expect(events[1]?.data).toEqual({ message_id: 'msg_2024400c0001y560tJyJXwOjs1' });
    expect(events[2]?.data).toEqual({
      tool_call_id: 'toolu_fake_10',
      name: 'Bash',
      input: { cwd: '<tmpdir>' },
      kind: 'execute',
      status: 'pending',
      locations: [{ path: '<tmpdir>' }],
    });
    expect(events[3]?.data).toMatchObject({
      tool_call_id: 'toolu_fake_10',
      name: 'touch created.txt',
      status: 'completed',
      is_error: false,
      output: '(no output)',
      raw_output: {
        output: '(no output)',
        metadata: { output: '(no output)', exit: 0, truncated: false },
      },
    });
  });

  it('reports the prompt response usage in snake_case', () => {
    const { m } = replay(O5_TOOL_TURN);
    expect(m.usage.summary(JSON.parse(O5_RESULT).result)).toEqual({
      usage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
    });
  });

  it('gives the permission request its tool call merged with the earlier updates', () => {
    const { asked } = replay(O5_TOOL_TURN.slice(0, 4));
    expect(asked).toEqual([
      expect.objectContaining({
        toolCallId: 'toolu_fake_10',
        title: 'touch created.txt',
        kind: 'execute',
        status: 'pending',
        locations: [],
        rawInput: { command: 'touch created.txt' },
      }),
    ]);
  });
});

describe('UpdateMapper on captured gemini --acp lines (g3)', () => {
  it('announces the tool from the permission request (gemini sends no tool_call) and results it once', () => {
    const { m, events } = replay(G3_TOOL_TURN);
    m.flush('t1');
    expect(brief(events)).toEqual([
      ['TOOL_CALL', 'touch gemini_created.txt'],
      ['TOOL_RESULT', ''],
      ['AGENT_MESSAGE_DELTA', 'Tool'],
      ['AGENT_MESSAGE_DELTA', ' ran'],
      ['AGENT_MESSAGE_DELTA', ' fine.'],
      ['AGENT_MESSAGE', 'Tool ran fine.'],
    ]);
    // The announcement says nothing of the permission: the gate records that.
    expect(events[0]?.data).toEqual({
      tool_call_id: 'run_shell_command__run_shell_command_1795334454015_0',
      name: 'touch gemini_created.txt',
      input: {},
      kind: 'execute',
      status: 'pending',
      locations: [],
    });
    expect(events[5]?.data).toBeUndefined();
  });

  it('takes usage from _meta.quota', () => {
    const { m } = replay(G3_TOOL_TURN);
    expect(m.usage.summary(JSON.parse(G3_RESULT).result)).toEqual({
      usage: { input_tokens: 26, output_tokens: 12 },
      model_usage: [{ model: 'gemini-2.5-flash', usage: { input_tokens: 26, output_tokens: 12 } }],
    });
  });
});

describe('UpdateMapper on other ACP agents (a1, a3)', () => {
  it('skips empty chunks and reports context and the turn share of the cumulative cost', () => {
    const { m, events } = replay(A1_TURN);
    expect(brief(events)).toEqual([['AGENT_MESSAGE_DELTA', 'Tool']]);
    expect(m.usage.summary(JSON.parse(A1_RESULT).result)).toEqual({
      usage: {
        input_tokens: 24,
        output_tokens: 27,
        cached_read_tokens: 0,
        cached_write_tokens: 0,
        total_tokens: 51,
      },
      context: { used_tokens: 19, size_tokens: 1000000 },
      session_cost: { amount: 0.000795, currency: 'USD' },
      cost_usd: 0.000795,
    });
    // The next turn reports only what it added to the session's cost.
    m.begin();
    m.update(
      {
        sessionUpdate: 'usage_update',
        used: 30,
        size: 1000000,
        cost: { amount: 0.001, currency: 'USD' },
      },
      't2',
    );
    expect(m.usage.summary({ stopReason: 'end_turn' }).cost_usd).toBeCloseTo(0.000205, 9);
  });

  it('results a tool whose update carries no output, and ignores session_info_update', () => {
    const { events } = replay(A3_TOOL);
    expect(events.map((e) => e.type)).toEqual(['TOOL_CALL', 'TOOL_RESULT']);
    expect(events[0]?.data).toMatchObject({
      tool_call_id: 'call_11',
      name: 'touch codex_created.txt',
      input: { command: 'touch codex_created.txt', cwd: '<tmpdir>' },
      status: 'in_progress',
    });
    expect(events[1]?.data).toMatchObject({ status: 'completed', is_error: false, output: '' });
  });
});

describe('UpdateMapper edge cases', () => {
  it('keeps thoughts apart from the message, both as deltas and as messages', () => {
    const events: AgentEvent[] = [];
    const m = new UpdateMapper((e) => events.push(e));
    const chunk = (kind: string, text: string) =>
      m.update({ sessionUpdate: kind, content: { type: 'text', text } }, 't');
    chunk('agent_thought_chunk', 'Let me');
    chunk('agent_thought_chunk', ' think.');
    chunk('agent_message_chunk', 'Answer.');
    m.flush('t');
    expect(events.map((e) => [e.type, e.text, e.data])).toEqual([
      ['AGENT_MESSAGE_DELTA', 'Let me', { thought: true }],
      ['AGENT_MESSAGE_DELTA', ' think.', { thought: true }],
      ['AGENT_MESSAGE', 'Let me think.', { thought: true }],
      ['AGENT_MESSAGE_DELTA', 'Answer.', undefined],
      ['AGENT_MESSAGE', 'Answer.', undefined],
    ]);
  });

  it('a failed tool is an error result; a repeated completion is reported once', () => {
    const events: AgentEvent[] = [];
    const m = new UpdateMapper((e) => events.push(e));
    const done = {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'x',
      status: 'failed',
      rawOutput: 'denied',
    };
    m.update(done, 't');
    m.update(done, 't');
    expect(events.map((e) => e.type)).toEqual(['TOOL_CALL', 'TOOL_RESULT']);
    expect(events[1]).toMatchObject({ text: 'denied', data: { is_error: true, output: 'denied' } });
  });

  it('a permission request ends the pending message before announcing its tool call', () => {
    const events: AgentEvent[] = [];
    const m = new UpdateMapper((e) => events.push(e));
    m.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hm.' } }, 't');
    const fields = m.permissionToolCall({ toolCallId: 'x', title: 'rm -rf /' }, 't');
    expect(fields).toMatchObject({ toolCallId: 'x', title: 'rm -rf /' });
    expect(brief(events)).toEqual([
      ['AGENT_MESSAGE_DELTA', 'Hm.'],
      ['AGENT_MESSAGE', 'Hm.'],
      ['TOOL_CALL', 'rm -rf /'],
    ]);
    // Asked again about the same call: merged, not announced twice.
    expect(m.permissionToolCall({ toolCallId: 'x', kind: 'execute' }, 't')).toMatchObject({
      title: 'rm -rf /',
      kind: 'execute',
    });
    expect(events).toHaveLength(3);
  });

  it('a permission request without a tool call id has no tool call and emits nothing', () => {
    const events: AgentEvent[] = [];
    const m = new UpdateMapper((e) => events.push(e));
    expect(m.permissionToolCall({ title: 'x' }, 't')).toBeUndefined();
    expect(m.permissionToolCall(undefined, 't')).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('caps a complete message; the deltas still carry everything', () => {
    const events: AgentEvent[] = [];
    const m = new UpdateMapper((e) => events.push(e));
    const big = 'x'.repeat(700 * 1024);
    m.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: big } }, 't');
    m.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: big } }, 't');
    m.flush('t');
    const msg = events.at(-1)!;
    expect(msg.text.length).toBe(1024 * 1024);
    expect(msg.data).toEqual({ truncated: true });
  });
});

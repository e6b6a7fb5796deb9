#!/usr/bin/env node
// The built-in mock agent: a real child process that needs no credentials
// and speaks the subset of claude's stream-json protocol the claude adapter
// uses (control initialize and interrupt, system/init per turn, text deltas,
// the assistant message, and a result with usage). Each input is answered
// with a short reply that quotes it, streamed a few words at a time. A
// message containing "slow" streams slowly, so an interrupt can land.
// A line "/tool <Name> <argument>" in a message makes the turn ask to use
// that tool first (a tool_use block, then a can_use_tool control request)
// and wait for the answer. Nothing is ever executed: an allowed tool's
// result only says what would have run, so the built-in provider can never
// act on the host.
// A line "/bridge <tool> <json arguments>" calls that collaboration tool of
// the MCP server named "bridge" in --mcp-config (the bridge's own, see
// docs/collaboration.md), as claude calls mcp__bridge__<tool> without asking,
// and the reply gives each result; several such lines run in order. These
// tools only talk to the daemon, so the mock still acts on nothing.
// It ignores its other claude-style flags, exits when stdin closes or on SIGTERM.
import { randomUUID } from 'node:crypto';
import { mcpClient } from './mcp-stdio-client.mjs';

const out = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
// After a daemon restart it is started with --resume: the same session, no memory of it.
const sessionId = argValue('--resume') ?? argValue('--session-id') ?? randomUUID();
let turn = 0;
let current; // { cancelled: boolean } while a turn streams
const queue = [];
/** Control requests sent to the bridge, by request_id, waiting for their control_response. */
const asked = new Map();
let lastAsk = 0;
/** The --mcp-config "bridge" server, started at the first /bridge line. */
let bridgeServer;
let bridgeCalls = 0;

function argValue(flag) {
  const i = process.argv.indexOf(flag);
  return i === -1 ? undefined : process.argv[i + 1];
}

function reply(text, toolNote) {
  const words = text.trim() === '' ? 0 : text.trim().split(/\s+/).length;
  const note = toolNote ? ` ${toolNote}.` : '';
  return `mock[${turn}]:${note} received "${text}" (${text.length} characters, ${words} words). done`;
}

/** Asks the bridge whether the tool may run; resolves with claude's permission answer. */
function canUseTool(name, input, toolUseId) {
  const requestId = `mock_req_${++lastAsk}`;
  out({
    type: 'control_request',
    request_id: requestId,
    request: { subtype: 'can_use_tool', tool_name: name, input, tool_use_id: toolUseId },
  });
  return new Promise((resolve) => asked.set(requestId, resolve));
}

/** The tool step of a turn whose message has a "/tool" line; returns what the reply says of it. */
async function useTool(name, arg) {
  const toolUseId = `toolu_mock_${turn}`;
  const input = name === 'Bash' ? { command: arg } : { file_path: arg };
  toolMessage(`msg_mock_${turn}_tool`, [{ type: 'tool_use', id: toolUseId, name, input }]);
  const answer = await canUseTool(name, input, toolUseId);
  const allowed = answer?.behavior === 'allow';
  const content = allowed
    ? `(mock) ${name} would have run with ${JSON.stringify(arg)}; the mock executes nothing`
    : String(answer?.message ?? 'denied');
  out({
    type: 'user',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: !allowed }],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
  });
  return allowed ? `${name} was allowed` : `${name} was denied (${content})`;
}

/** Calls a tool of the bridge's MCP server as a tool_use / tool_result pair; returns what the reply says of it. */
async function useBridge(tool, json) {
  const toolUseId = `toolu_mock_${turn}_bridge_${++bridgeCalls}`;
  let input;
  try {
    input = JSON.parse(json || '{}');
  } catch {}
  const name = `mcp__bridge__${tool}`;
  toolMessage(`msg_mock_${turn}_bridge_${bridgeCalls}`, [
    { type: 'tool_use', id: toolUseId, name, input: input ?? { arguments: json } },
  ]);
  let result;
  let isError = false;
  try {
    if (input === undefined) throw new Error(`the arguments are not JSON: ${json}`);
    const config = JSON.parse(argValue('--mcp-config') ?? '{}').mcpServers?.bridge;
    if (!config) throw new Error('this session has no bridge tools (no "bridge" in --mcp-config)');
    bridgeServer ??= mcpClient(config).catch((err) => {
      bridgeServer = undefined;
      throw err;
    });
    const r = await (await bridgeServer).callTool(tool, input);
    isError = r.isError === true;
    result = r.content?.map((c) => c.text ?? '').join('') ?? '';
  } catch (err) {
    isError = true;
    result = err.message;
  }
  out({
    type: 'user',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: toolUseId, content: result, is_error: isError },
      ],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
  });
  return `bridge ${tool}${isError ? ' failed' : ''}: ${result}`;
}

function toolMessage(id, content) {
  out({
    type: 'assistant',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'mock',
      content,
    },
    parent_tool_use_id: null,
    session_id: sessionId,
  });
}

async function runTurn(text) {
  turn += 1;
  const state = { cancelled: false };
  current = state;
  const started = Date.now();
  out({
    type: 'system',
    subtype: 'init',
    cwd: process.cwd(),
    session_id: sessionId,
    model: 'mock',
    permissionMode: 'default',
    claude_code_version: 'mock',
    tools: [],
  });
  const tool = /^\/tool (\S+)(?: +(.*))?$/m.exec(text);
  const notes = tool ? [await useTool(tool[1], tool[2] ?? '')] : [];
  for (const [, name, json] of text.matchAll(/^\/bridge (\w+)(?: +(.*))?$/gm)) {
    if (state.cancelled) break;
    notes.push(await useBridge(name, json));
  }
  const toolNote = notes.length > 0 ? notes.join('; ') : undefined;
  const full = reply(text, toolNote);
  const pieces = full.match(/\S+\s*/g) ?? [full];
  const delay = text.includes('slow') ? 200 : 2;
  let sent = '';
  for (const piece of pieces) {
    if (state.cancelled) break;
    out({
      type: 'stream_event',
      event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
      session_id: sessionId,
      parent_tool_use_id: null,
    });
    sent += piece;
    await new Promise((r) => setTimeout(r, delay));
  }
  const message = {
    id: `msg_mock_${turn}`,
    type: 'message',
    role: 'assistant',
    model: 'mock',
    content: [{ type: 'text', text: sent }],
  };
  out({ type: 'assistant', message, parent_tool_use_id: null, session_id: sessionId });
  const usage = {
    input_tokens: text.length,
    output_tokens: sent.length,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const base = {
    type: 'result',
    duration_ms: Date.now() - started,
    duration_api_ms: 0,
    num_turns: 1,
    session_id: sessionId,
    total_cost_usd: 0,
    usage,
    permission_denials: [],
  };
  if (state.cancelled) {
    out({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      session_id: sessionId,
      parent_tool_use_id: null,
    });
    out({ ...base, subtype: 'error_during_execution', is_error: true, stop_reason: null });
  } else {
    out({ ...base, subtype: 'success', is_error: false, result: sent, stop_reason: 'end_turn' });
  }
  current = undefined;
  const next = queue.shift();
  if (next !== undefined) void runTurn(next);
}

function onLine(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.type === 'control_response') {
    const answered = asked.get(msg.response?.request_id);
    asked.delete(msg.response?.request_id);
    answered?.(msg.response?.response);
    return;
  }
  if (msg.type === 'control_request') {
    const id = msg.request_id;
    const subtype = msg.request?.subtype;
    const reply = (response) =>
      out({ type: 'control_response', response: { request_id: id, ...response } });
    if (subtype === 'initialize') {
      reply({
        subtype: 'success',
        response: { commands: [], models: [{ value: 'mock' }], pid: process.pid },
      });
    } else if (subtype === 'interrupt') {
      if (current) current.cancelled = true;
      reply({ subtype: 'success' });
    } else {
      reply({ subtype: 'error', error: `unsupported control request ${subtype}` });
    }
    return;
  }
  if (msg.type === 'user') {
    const c = msg.message?.content;
    const text =
      typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => b.text ?? '').join('') : '';
    if (current) queue.push(text);
    else void runTurn(text);
  }
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
    onLine(buf.slice(0, i));
    buf = buf.slice(i + 1);
  }
});
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));

// The client side of MCP over stdio, as the agent CLIs speak it to the MCP
// servers they are configured with (newline-delimited JSON-RPC 2.0:
// initialize, notifications/initialized, tools/list, tools/call). The
// built-in mock agent calls the bridge's collaboration tools with it, and so
// do the fake CLIs of the tests.
import { spawn } from 'node:child_process';

/** How long a request may go unanswered unless the caller says otherwise. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Starts the stdio MCP server `{ command, args, env }` and returns
 * `request(method, params, timeoutMs)`, resolving with the result
 * (rejecting with the JSON-RPC error, or once `timeoutMs` passed without an
 * answer), after the initialize handshake; `callTool(name, args)`; and
 * `close()`.
 */
export async function mcpClient({ command, args = [], env = {} }) {
  const child = spawn(command, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  const pending = new Map();
  let next = 1;
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      const done = pending.get(msg.id);
      pending.delete(msg.id);
      if (!done) continue;
      if (msg.error) done.reject(new Error(`${msg.error.code}: ${msg.error.message}`));
      else done.resolve(msg.result);
    }
  });
  const exited = new Promise((resolve) => {
    child.once('exit', resolve);
    child.once('error', resolve);
  });
  exited.then(() => {
    for (const p of pending.values()) p.reject(new Error('the MCP server exited'));
    pending.clear();
  });
  const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  const request = (method, params = {}, timeoutMs = DEFAULT_TIMEOUT_MS) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the MCP server did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = (fn) => (value) => {
        clearTimeout(timer);
        fn(value);
      };
      pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      send({ id, method, params });
    });
  try {
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bridge-agent', version: '1.0.0' },
    });
  } catch (err) {
    child.kill();
    throw err;
  }
  send({ method: 'notifications/initialized' });
  return {
    request,
    /** tools/call, allowed the tool's own wait (wait_for_message) on top of the usual bound. */
    callTool: (name, args) => {
      const wait = name === 'wait_for_message' ? (args?.timeout_seconds ?? 60) * 1000 : 0;
      return request('tools/call', { name, arguments: args }, DEFAULT_TIMEOUT_MS + wait);
    },
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

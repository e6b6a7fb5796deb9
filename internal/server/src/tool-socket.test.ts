import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeError } from '@agent-bridge/bridge';
import { waitFor, within } from '@agent-bridge/waits';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentToolsPort, startToolSocket, type ToolSocket } from './tool-socket.js';

const dirs: string[] = [];
const sockets: ToolSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const GOOD = 'live-capability';

/** Tools that know one capability; `wait` blocks until aborted. */
function fakeTools(): AgentToolsPort & { aborted: number } {
  const check = (cap: string) => {
    if (cap !== GOOD) throw new BridgeError('permission_denied', 'not valid', 'capability_invalid');
  };
  const t = {
    aborted: 0,
    listFor: (cap: string) => {
      check(cap);
      return [{ name: 'echo' }];
    },
    call: async (cap: string, name: string, args: unknown, signal: AbortSignal) => {
      check(cap);
      if (name === 'boom') throw new Error('a bug, with /secret/path');
      if (name === 'wait') {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            t.aborted++;
            resolve();
          }),
        );
        return null;
      }
      return { echoed: args };
    },
  };
  return t;
}

async function open(tools = fakeTools()) {
  const dir = mkdtempSync(join(tmpdir(), 'tools-'));
  dirs.push(dir);
  const socket = await startToolSocket({
    path: join(dir, 'run', 'tools.sock'),
    tools,
    logger: pino({ level: 'silent' }),
  });
  sockets.push(socket);
  return { socket, tools, dir };
}

/** A client that sends JSON lines and reads the replies in order. */
async function client(path: string) {
  const s: Socket = connect(path);
  await new Promise((resolve, reject) => s.once('connect', resolve).once('error', reject));
  let buffered = '';
  const replies: unknown[] = [];
  const waiting: (() => void)[] = [];
  s.setEncoding('utf8');
  s.on('data', (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      replies.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
      waiting.shift()?.();
    }
  });
  const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
  return {
    s,
    closed,
    send: (msg: unknown) => s.write(`${typeof msg === 'string' ? msg : JSON.stringify(msg)}\n`),
    next: async () => {
      if (replies.length === 0) await within('a reply', new Promise<void>((r) => waiting.push(r)));
      return replies.shift() as Record<string, unknown>;
    },
  };
}

describe('the tool socket', () => {
  it('is a 0600 socket in a 0700 directory', async () => {
    const { socket } = await open();
    expect(statSync(socket.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(socket.path, '..')).mode & 0o777).toBe(0o700);
  });

  it('lists and calls tools for a live capability, answering each id', async () => {
    const { socket } = await open();
    const c = await client(socket.path);
    c.send({ id: 1, capability: GOOD, method: 'tools/list' });
    expect(await c.next()).toEqual({ id: 1, result: { tools: [{ name: 'echo' }] } });
    c.send({ id: 'b', capability: GOOD, method: 'tools/call', name: 'echo', arguments: { x: 1 } });
    expect(await c.next()).toEqual({ id: 'b', result: { echoed: { x: 1 } } });
  });

  it('refuses a missing or dead capability, a bad line and a bad method, and hides internal errors', async () => {
    const { socket } = await open();
    const c = await client(socket.path);
    c.send({ id: 1, method: 'tools/list' });
    expect(await c.next()).toMatchObject({ id: 1, error: { code: 'permission_denied' } });
    c.send({ id: 2, capability: 'stolen', method: 'tools/call', name: 'echo' });
    expect(await c.next()).toMatchObject({
      id: 2,
      error: { code: 'permission_denied', message: 'not valid' },
    });
    c.send('{not json');
    expect(await c.next()).toMatchObject({ id: null, error: { code: 'invalid_argument' } });
    c.send({ id: 3, capability: GOOD, method: 'tools/delete' });
    expect(await c.next()).toMatchObject({ id: 3, error: { code: 'invalid_argument' } });
    c.send({ id: 4, capability: GOOD, method: 'tools/call', name: 'boom' });
    const boom = await c.next();
    expect(boom).toMatchObject({ id: 4, error: { code: 'internal' } });
    expect(JSON.stringify(boom)).not.toContain('/secret/path');
  });

  it('ends a connection that sends an endless line', async () => {
    const { socket } = await open();
    const c = await client(socket.path);
    c.s.write('x'.repeat(300 * 1024));
    expect(await c.next()).toMatchObject({ error: { code: 'invalid_argument' } });
    await within('the connection to end', c.closed);
  });

  it('a closed connection aborts what it waits for; close removes the socket', async () => {
    const { socket, tools } = await open();
    const c = await client(socket.path);
    c.send({ id: 1, capability: GOOD, method: 'tools/call', name: 'wait' });
    c.send({ id: 2, capability: GOOD, method: 'tools/list' });
    await c.next();
    c.s.destroy();
    await waitFor('the wait to be aborted', () => tools.aborted > 0);
    await socket.close();
    sockets.length = 0;
    expect(() => statSync(socket.path)).toThrow();
  });
});

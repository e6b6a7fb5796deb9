/**
 * The client `bridge mcp` uses to reach the daemon's tool socket: every
 * request ends, answered by the daemon or told why not (no answer within its
 * bound, the connection closed, a line that is not the daemon's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Reply, ToolSocketClient } from './tool-socket-client.js';

let dir: string;
let server: Server;
let path: string;
/** What the stand-in daemon received, and its side of each connection. */
let received: { line: Record<string, unknown>; socket: Socket }[];
let nextLine: () => Promise<{ line: Record<string, unknown>; socket: Socket }>;
/** The stand-in daemon's side of every connection, closed after each test. */
const sockets = new Set<Socket>();

function listen(): Promise<void> {
  received = [];
  const waiting: ((r: (typeof received)[number]) => void)[] = [];
  nextLine = () =>
    new Promise((resolve) => {
      const ready = received.shift();
      if (ready) resolve(ready);
      else waiting.push(resolve);
    });
  server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let buf = '';
    socket.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
        const got = { line: JSON.parse(buf.slice(0, i)) as Record<string, unknown>, socket };
        buf = buf.slice(i + 1);
        const w = waiting.shift();
        if (w) w(got);
        else received.push(got);
      }
    });
  });
  return new Promise((resolve) => server.listen(path, resolve));
}

const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tsc-'));
  path = join(dir, 'tools.sock');
  await listen();
});

afterEach(async () => {
  vi.useRealTimers();
  for (const s of sockets) s.destroy();
  await closeServer().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** A request's promise with whether it has settled yet. */
function tracked(p: Promise<Reply>) {
  const t = { settled: false, reply: undefined as Reply | undefined, done: p };
  p.then((r) => {
    t.settled = true;
    t.reply = r;
  });
  return t;
}

describe('ToolSocketClient', () => {
  it('sends the capability with each request and matches answers by id', async () => {
    const client = new ToolSocketClient(path, 'cap-1');
    const a = client.request('tools/list', {});
    const b = client.request('tools/call', { name: 'who', arguments: {} });
    const first = await nextLine();
    const second = await nextLine();
    expect(first.line).toEqual({ id: 1, capability: 'cap-1', method: 'tools/list' });
    expect(second.line).toMatchObject({ id: 2, capability: 'cap-1', name: 'who' });
    // Answered out of order: each still gets its own.
    second.socket.write(`${JSON.stringify({ id: 2, result: { sessions: [] } })}\n`);
    first.socket.write(`${JSON.stringify({ id: 1, result: { tools: [] } })}\n`);
    expect(await a).toEqual({ id: 1, result: { tools: [] } });
    expect(await b).toEqual({ id: 2, result: { sessions: [] } });
    client.close();
  });

  it('answers deadline_exceeded once the answer bound plus what the call waits has passed', async () => {
    const client = new ToolSocketClient(path, 'cap-1', { connectMs: 1_000, answerMs: 1_000 });
    // Connected first, on real timers; the wait itself on fake ones.
    const warm = client.request('tools/list', {});
    const w = await nextLine();
    w.socket.write(`${JSON.stringify({ id: w.line.id, result: {} })}\n`);
    await warm;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waiting = tracked(client.request('tools/call', { name: 'wait_for_message' }, 2_000));
    await nextLine();
    await vi.advanceTimersByTimeAsync(2_900);
    expect(waiting.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(waiting.reply).toEqual({
      id: 2,
      error: { code: 'deadline_exceeded', message: 'the bridge daemon did not answer within 3 s' },
    });
    // Without a wait of its own, the answer bound alone.
    const plain = tracked(client.request('tools/list', {}));
    await nextLine();
    await vi.advanceTimersByTimeAsync(1_001);
    expect(plain.reply?.error?.code).toBe('deadline_exceeded');
    client.close();
  });

  it('tells what is under way when the daemon closes the connection, and connects again after', async () => {
    const client = new ToolSocketClient(path, 'cap-1');
    const pending = client.request('tools/list', {});
    const got = await nextLine();
    got.socket.destroy();
    expect(await pending).toEqual({
      id: 1,
      error: { code: 'unavailable', message: 'the bridge daemon closed the connection' },
    });
    const again = client.request('tools/list', {});
    const next = await nextLine();
    next.socket.write(`${JSON.stringify({ id: next.line.id, result: { tools: [] } })}\n`);
    expect((await again).result).toEqual({ tools: [] });
    client.close();
  });

  it('drops a connection that does not speak the protocol, failing what waits on it', async () => {
    const client = new ToolSocketClient(path, 'cap-1');
    const pending = client.request('tools/list', {});
    const got = await nextLine();
    got.socket.write('HTTP/1.1 400 Bad Request\r\n\r\n\n');
    expect((await pending).error?.code).toBe('unavailable');
    client.close();
  });

  it('rejects at once when nothing listens on the socket', async () => {
    await closeServer();
    const client = new ToolSocketClient(path, 'cap-1');
    await expect(client.request('tools/list', {})).rejects.toThrow(/ENOENT|ECONNREFUSED/);
  });
});

import { nextTurn } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { JsonRpcPeer } from './json-rpc-peer.js';
import { RequestError } from './pending-requests.js';

function pair(opts: { jsonrpcField?: boolean } = {}) {
  const sent: Record<string, unknown>[] = [];
  const notes: [string, unknown][] = [];
  const peer = new JsonRpcPeer({
    jsonrpcField: opts.jsonrpcField ?? false,
    write: (msg) => sent.push(msg),
    onNotification: (m, p) => notes.push([m, p]),
    onRequest: async (method, params) => {
      if (method === 'fail') throw new RequestError('nope', -32601);
      if (method === 'crash') throw new Error('boom');
      return { echoed: params };
    },
  });
  return { peer, sent, notes };
}

describe('JsonRpcPeer', () => {
  it('correlates answers by id, in any order, with or without the jsonrpc field', async () => {
    const { peer, sent } = pair({ jsonrpcField: true });
    const a = peer.request('a', { x: 1 });
    const b = peer.request('b');
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'a', params: { x: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'b' },
    ]);
    expect(peer.handle({ id: 2, result: 'B' })).toBe(true);
    expect(peer.handle({ id: 1, result: { ok: true } })).toBe(true);
    await expect(a).resolves.toEqual({ ok: true });
    await expect(b).resolves.toBe('B');
  });

  it('turns an error answer into a RequestError naming the method', async () => {
    const { peer } = pair();
    const p = peer.request('thread/start');
    peer.handle({ id: 1, error: { code: -32600, message: 'Not initialized' } });
    await expect(p).rejects.toMatchObject({
      message: 'thread/start: Not initialized',
      code: -32600,
    });
  });

  it('times out, and ignores the late answer', async () => {
    const { peer } = pair();
    const p = peer.request('slow', undefined, 10);
    await expect(p).rejects.toThrow('slow timed out after 10ms');
    expect(peer.handle({ id: 1, result: 1 })).toBe(true);
  });

  it('answers peer requests with results or errors, and passes notifications on', async () => {
    const { peer, sent, notes } = pair();
    peer.handle({ id: 'r1', method: 'ask', params: { q: 1 } });
    peer.handle({ id: 7, method: 'fail' });
    peer.handle({ id: 8, method: 'crash' });
    peer.handle({ method: 'turn/started', params: { turn: 1 } });
    await nextTurn();
    expect(sent).toEqual([
      { id: 'r1', result: { echoed: { q: 1 } } },
      { id: 7, error: { code: -32601, message: 'nope' } },
      { id: 8, error: { code: -32603, message: 'boom' } },
    ]);
    expect(notes).toEqual([['turn/started', { turn: 1 }]]);
  });

  it('reports non-JSON-RPC values so the owner can keep them as output', () => {
    const { peer } = pair();
    expect(peer.handle({ type: 'system' })).toBe(false);
    expect(peer.handle([1])).toBe(false);
    expect(peer.handle(null)).toBe(false);
  });

  it('throws at once when the request cannot be written, and leaves nothing pending', () => {
    const peer = new JsonRpcPeer({
      jsonrpcField: false,
      write: () => {
        throw new Error('EPIPE');
      },
      onNotification: () => {},
      onRequest: async () => null,
    });
    expect(() => peer.request('turn/start')).toThrow('EPIPE');
    expect(() => peer.notify('initialized')).toThrow('EPIPE');
  });

  it('fails pending and later requests once closed', async () => {
    const { peer, sent } = pair();
    const p = peer.request('x');
    peer.close('the agent exited');
    await expect(p).rejects.toThrow('the agent exited');
    await expect(peer.request('y')).rejects.toThrow('the agent exited');
    expect(sent).toHaveLength(1);
  });
});

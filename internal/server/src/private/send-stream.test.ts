import { EventEmitter } from 'node:events';
import { nextTurn } from '@agent-bridge/waits';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { sendStream } from './send-stream.js';

/** A stream that takes `room` messages before it asks the writer to wait for 'drain'. */
function fakeCall(room: number) {
  const written: string[] = [];
  const call = Object.assign(new EventEmitter(), {
    write: (m: Buffer) => {
      written.push(m.toString());
      return written.length % room !== 0;
    },
  });
  return { call: call as unknown as ServerWritableStream<unknown, Buffer>, emitter: call, written };
}

/** An async source of `items` that records whether it was closed. */
function source<T>(items: T[], after?: Promise<void>) {
  const state = { closed: false };
  async function* gen() {
    try {
      for (const i of items) yield i;
      if (after) await after;
    } finally {
      state.closed = true;
    }
  }
  return { iterable: gen(), state };
}

const encode = (n: number) => [Buffer.from(`${n}a`), Buffer.from(`${n}b`)];

describe('sendStream', () => {
  it('writes every message of every item in order, waiting on drain, and reports the end', async () => {
    const { call, emitter, written } = fakeCall(3);
    const src = source([1, 2, 3]);
    const drains = setInterval(() => emitter.emit('drain'), 1);
    try {
      expect(await sendStream(call, src.iterable, encode, new AbortController().signal)).toBe(true);
    } finally {
      clearInterval(drains);
    }
    expect(written).toEqual(['1a', '1b', '2a', '2b', '3a', '3b']);
    expect(src.state.closed).toBe(true);
  });

  it('stops on abort while it waits for drain, closes the source, and writes nothing more', async () => {
    const { call, written } = fakeCall(1);
    const src = source([1, 2, 3]);
    const scope = new AbortController();
    const sending = sendStream(call, src.iterable, encode, scope.signal);
    await nextTurn(); // the first item is out; the writer waits for drain
    expect(written).toEqual(['1a', '1b']);
    scope.abort();
    expect(await sending).toBe(false);
    expect(written).toEqual(['1a', '1b']);
    expect(src.state.closed).toBe(true);
  });

  it('stops on abort while the source waits, and does not report that as the end', async () => {
    const { call } = fakeCall(100);
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const src = source([1], held);
    const scope = new AbortController();
    const sending = sendStream(call, src.iterable, encode, scope.signal);
    await nextTurn();
    scope.abort();
    release(); // the source ends only because its reader was told to stop
    expect(await sending).toBe(false);
    expect(src.state.closed).toBe(true);
  });

  it("passes the source's error on, after closing it", async () => {
    const { call } = fakeCall(100);
    async function* failing() {
      yield 1;
      throw new Error('ring gone');
    }
    await expect(sendStream(call, failing(), encode, new AbortController().signal)).rejects.toThrow(
      'ring gone',
    );
  });
});

import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@agent-bridge/waits';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventFeed } from './event-feed.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('an event feed', () => {
  it('waits for a reader that stops reading instead of buffering everything for it', async () => {
    const EVENTS = 400;
    const chunk = 'x'.repeat(64 * 1024);
    let res: ServerResponse | undefined;
    let done = 0;
    let mostBuffered = 0;
    const server = createServer((req, r) => {
      res = r;
      const feed = openEventFeed(req, r);
      void (async () => {
        for (let i = 1; i <= EVENTS; i++) {
          await feed.send('big', chunk, i);
          mostBuffered = Math.max(mostBuffered, r.writableLength);
          done = i;
        }
        feed.end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    const { port } = server.address() as AddressInfo;
    const reply = get(`http://127.0.0.1:${port}/`);
    closers.push(() => reply.destroy());
    const [incoming] = (await once(reply, 'response')) as [IncomingMessage];
    incoming.pause();
    // The reader reads nothing: the feed's buffer fills, and the writer waits.
    await waitFor('the feed to fill its buffer', () => res?.writableNeedDrain === true);
    expect(done).toBeLessThan(EVENTS);
    let received = 0;
    incoming.on('data', (d: Buffer) => {
      received += d.length;
    });
    incoming.resume();
    await once(incoming, 'end');
    expect(done).toBe(EVENTS);
    expect(received).toBeGreaterThan(EVENTS * chunk.length);
    // Never more than its high-water mark and one event waited in memory.
    expect(mostBuffered).toBeLessThanOrEqual(
      (res?.writableHighWaterMark ?? 0) + chunk.length + 100,
    );
  });
});

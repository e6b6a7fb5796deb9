import { within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { LatestWrites } from './latest-writes.js';

/** A write that waits until let go, recording that it ran. */
function gated(log: string[], name: string) {
  let go: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    go = resolve;
  });
  return {
    write: async () => {
      log.push(name);
      await released;
    },
    go: () => go(),
  };
}

describe('writes where only the latest value of a key matters', () => {
  it('writes the latest value of a key once the one in flight is done, and skips those it replaced', async () => {
    const log: string[] = [];
    const writes = new LatestWrites(new AbortController().signal, () => {});
    const first = gated(log, 'k=1');
    writes.set('k', first.write);
    writes.set('k', async () => {
      log.push('k=2');
    });
    writes.set('k', async () => {
      log.push('k=3');
    });
    writes.set('j', async () => {
      log.push('j=1');
    });
    expect(writes.waiting).toBe(2);
    first.go();
    await within('the writes to settle', writes.settled());
    expect(log).toEqual(['k=1', 'k=3', 'j=1']);
    expect(writes.waiting).toBe(0);
  });

  it('tries a failed write again until it lands, reporting each failure, unless a newer value came', async () => {
    const failures: string[] = [];
    const writes = new LatestWrites(new AbortController().signal, (key, err) =>
      failures.push(`${key}: ${err.message}`),
    );
    let tries = 0;
    writes.set('k', async () => {
      if (++tries < 3) throw new Error('no responders');
    });
    await within('the write to land', writes.settled(), 10_000);
    expect(tries).toBe(3);
    expect(failures).toEqual(['k: no responders', 'k: no responders']);
  });

  it('forgets a dropped key, and stops trying when its lifetime ends', async () => {
    const life = new AbortController();
    const log: string[] = [];
    const writes = new LatestWrites(life.signal, () => {});
    const first = gated(log, 'a');
    writes.set('a', first.write);
    writes.set('b', async () => {
      log.push('b');
    });
    writes.drop('b');
    writes.set('c', async () => {
      throw new Error('NATS away');
    });
    first.go();
    await new Promise((resolve) => setImmediate(resolve));
    life.abort();
    await within('the writes to stop with the lifetime', writes.settled());
    expect(log).toEqual(['a']);
    // The failed one still waits: the next start writes it (the store keeps the truth).
    expect(writes.waiting).toBe(1);
  });
});

import { nextTurn, waitFor } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { ProbeSlots } from './probe-slots.js';

/** A task the test finishes by hand, logging when it begins. */
function task(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    run: async () => {
      log.push(name);
      await done;
      return name;
    },
    finish,
  };
}
const never = new AbortController().signal;

describe('ProbeSlots', () => {
  it('runs at most `size` tasks at once, the others in the order they came', async () => {
    const slots = new ProbeSlots(2);
    const log: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => task(log, n));
    const runs = [a!, b!, c!, d!].map((t) => slots.run(never, t.run));
    await nextTurn();
    expect(log).toEqual(['a', 'b']);
    b!.finish();
    await nextTurn();
    expect(log).toEqual(['a', 'b', 'c']);
    a!.finish();
    c!.finish();
    d!.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a waiter whose signal aborts leaves the queue and never runs; a failed task frees its slot', async () => {
    const slots = new ProbeSlots(1);
    const log: string[] = [];
    const failing = slots.run(never, async () => {
      log.push('failing');
      await nextTurn();
      throw new Error('boom');
    });
    const giveUp = new AbortController();
    const abandoned = slots.run(giveUp.signal, async () => log.push('abandoned'));
    const next = task(log, 'next');
    const after = slots.run(never, next.run);
    giveUp.abort(new Error('stopped'));
    await expect(abandoned).rejects.toThrow('stopped');
    await expect(failing).rejects.toThrow('boom');
    await nextTurn();
    next.finish();
    expect(await after).toBe('next');
    expect(log).toEqual(['failing', 'next']);
  });

  it('a task that runs past holdMs gives its slot to the next and runs on', async () => {
    const slots = new ProbeSlots(1, 50);
    const log: string[] = [];
    const hung = task(log, 'hung');
    const next = task(log, 'next');
    const runs = [slots.run(never, hung.run), slots.run(never, next.run)];
    await nextTurn();
    expect(log).toEqual(['hung']);
    await waitFor('the next task to get the slot', () => log.length === 2);
    expect(log).toEqual(['hung', 'next']);
    next.finish();
    hung.finish();
    expect(await Promise.all(runs)).toEqual(['hung', 'next']);
  });

  it('refuses a size below one', () => {
    expect(() => new ProbeSlots(0)).toThrow(RangeError);
  });
});

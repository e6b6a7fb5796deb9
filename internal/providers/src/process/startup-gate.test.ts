import { nextTurn } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { StartupError } from '../contract/errors.js';
import { StartupGate } from './startup-gate.js';

/** A start-up the test finishes by hand, recording when it began. */
function startup(log: string[], name: string) {
  let finish!: (ok: boolean) => void;
  const done = new Promise<boolean>((resolve) => {
    finish = resolve;
  });
  return {
    run: async () => {
      log.push(`${name} begins`);
      if (!(await done)) throw new Error(`${name} failed`);
      log.push(`${name} ready`);
      return name;
    },
    finish,
  };
}
const never = new AbortController().signal;

describe('StartupGate', () => {
  it('runs the first start-ups in a home alone until one succeeds, then the rest side by side', async () => {
    const gate = new StartupGate();
    const log: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => startup(log, n));
    const runs = [a!, b!, c!, d!].map((s) => gate.run('home', never, s.run));
    await nextTurn();
    expect(log).toEqual(['a begins']);
    // The first fails: the next in line goes alone in its place.
    a!.finish(false);
    await expect(runs[0]).rejects.toThrow('a failed');
    await nextTurn();
    expect(log).toEqual(['a begins', 'b begins']);
    // It succeeds: the home is initialised, and both others begin at once.
    b!.finish(true);
    await nextTurn();
    expect(log).toEqual(['a begins', 'b begins', 'b ready', 'c begins', 'd begins']);
    d!.finish(true);
    c!.finish(true);
    expect(await Promise.all(runs.slice(1))).toEqual(['b', 'c', 'd']);
  });

  it('in an initialised home, a start-up begins at once even while another runs', async () => {
    const gate = new StartupGate();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => startup(log, n));
    a!.finish(true);
    await gate.run('home', never, a!.run);
    const runs = [gate.run('home', never, b!.run), gate.run('home', never, c!.run)];
    await nextTurn();
    expect(log).toEqual(['a begins', 'a ready', 'b begins', 'c begins']);
    b!.finish(true);
    c!.finish(true);
    expect(await Promise.all(runs)).toEqual(['b', 'c']);
  });

  it('lets start-ups with different keys run side by side', async () => {
    const gate = new StartupGate();
    const log: string[] = [];
    const a = startup(log, 'a');
    const b = startup(log, 'b');
    const runs = [gate.run('home-1', never, a.run), gate.run('home-2', never, b.run)];
    await nextTurn();
    expect(log).toEqual(['a begins', 'b begins']);
    a.finish(true);
    b.finish(true);
    expect(await Promise.all(runs)).toEqual(['a', 'b']);
  });

  it('a start-up abandoned while it waits fails at once, without beginning; the others go on', async () => {
    const gate = new StartupGate();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => startup(log, n));
    const abandon = new AbortController();
    const first = gate.run('home', never, a!.run);
    const second = gate.run('home', abandon.signal, b!.run);
    const third = gate.run('home', never, c!.run);
    abandon.abort();
    await expect(second).rejects.toThrow(StartupError);
    await nextTurn();
    expect(log).toEqual(['a begins']);
    a!.finish(true);
    c!.finish(true);
    expect(await Promise.all([first, third])).toEqual(['a', 'c']);
    expect(log).toEqual(['a begins', 'a ready', 'c begins', 'c ready']);
  });
});

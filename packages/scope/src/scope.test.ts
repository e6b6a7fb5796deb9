import { describe, expect, it } from 'vitest';
import { type After, endCause, ScopeEnded, scope } from './scope.js';

/** Timers fired by hand: `fire()` runs every one still armed. */
function handTimers(): { after: After; fire(): void; armed(): number } {
  const armed = new Set<() => void>();
  return {
    after: (_ms, fn, signal) => {
      if (signal.aborted) return;
      armed.add(fn);
      signal.addEventListener('abort', () => armed.delete(fn), { once: true });
    },
    fire: () => {
      for (const fn of [...armed]) {
        armed.delete(fn);
        fn();
      }
    },
    armed: () => armed.size,
  };
}

describe('scope', () => {
  it('ends with its parent, keeping the parent reason, and the first reason stays', () => {
    const daemon = scope();
    const session = scope(daemon.signal);
    const turn = scope(session.signal);
    daemon.end(new ScopeEnded('shutdown'));
    expect(endCause(turn.signal)).toBe('shutdown');
    turn.end(new ScopeEnded('turn_end'));
    expect(endCause(turn.signal)).toBe('shutdown');
  });

  it('ends at once under a parent already ended', () => {
    const parent = scope();
    parent.end(new ScopeEnded('exit'));
    const child = scope(parent.signal);
    expect(child.signal.aborted).toBe(true);
    expect(endCause(child.signal)).toBe('exit');
  });

  it('ends with whichever of several parents ends first', () => {
    const call = scope();
    const daemon = scope();
    const both = scope([call.signal, daemon.signal]);
    daemon.end(new ScopeEnded('shutdown'));
    expect(endCause(both.signal)).toBe('shutdown');
  });

  it('leaves no listener on a parent once it ended, however many children came and went', () => {
    const session = scope();
    let added = 0;
    let removed = 0;
    const add = session.signal.addEventListener.bind(session.signal);
    const remove = session.signal.removeEventListener.bind(session.signal);
    session.signal.addEventListener = ((...a: Parameters<typeof add>) => {
      added++;
      return add(...a);
    }) as typeof add;
    session.signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
      removed++;
      return remove(...a);
    }) as typeof remove;
    for (let i = 0; i < 100; i++) scope(session.signal).end(new ScopeEnded('turn_end'));
    expect(added).toBe(100);
    expect(removed).toBe(100);
  });

  it('ends at its deadline with the timeout cause, and an ended scope disarms its timer', () => {
    const t = handTimers();
    const request = scope([], { timeoutMs: 1000, after: t.after });
    expect(t.armed()).toBe(1);
    t.fire();
    expect(endCause(request.signal)).toBe('timeout');
    const answered = scope([], { timeoutMs: 1000, after: t.after });
    answered.end(new ScopeEnded('stop'));
    expect(t.armed()).toBe(0);
  });

  it('reports no cause for a reason that is not a ScopeEnded', () => {
    const s = scope();
    s.end(new Error('other'));
    expect(s.signal.aborted).toBe(true);
    expect(endCause(s.signal)).toBeUndefined();
  });
});

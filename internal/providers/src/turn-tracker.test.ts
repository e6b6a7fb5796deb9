import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TurnTracker } from './turn-tracker.js';

describe('TurnTracker', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('numbers turns, adopts the agent id, and fires the timeout only for the running turn', () => {
    const fired: string[] = [];
    const t = new TurnTracker(1000, (id) => fired.push(id));
    expect(t.begin()).toBe('turn-1');
    expect(t.end()).toBe('turn-1');
    vi.advanceTimersByTime(5000);
    expect(fired).toEqual([]);
    expect(t.begin('019a-turn')).toBe('019a-turn');
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['019a-turn']);
    t.begin();
    t.adopt('agent-3');
    expect(t.current).toBe('agent-3');
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['019a-turn', 'agent-3']);
  });

  it('has no timer when the timeout is 0', () => {
    const fired: string[] = [];
    const t = new TurnTracker(0, (id) => fired.push(id));
    t.begin();
    vi.advanceTimersByTime(10 ** 9);
    expect(fired).toEqual([]);
  });
});

import { waitFor } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { ProbeSlots } from './probe-slots.js';
import { ProbedFact, type ProbeOutcome } from './probed-fact.js';

/** A probe whose runs the test answers by hand; each run sees its deadline. */
function manual<T>() {
  const runs: { deadline: AbortSignal; answer: (o: ProbeOutcome<T>) => void }[] = [];
  return {
    runs,
    probe: (deadline: AbortSignal) =>
      new Promise<ProbeOutcome<T>>((answer) => {
        runs.push({ deadline, answer });
      }),
  };
}

function fact<T>(
  probe: (deadline: AbortSignal) => Promise<ProbeOutcome<T>>,
  over: { holdsMs?: number; timeoutMs?: number; now?: () => number; lifetime?: AbortSignal } = {},
) {
  return new ProbedFact<T>({
    probe,
    holdsFor: () => over.holdsMs ?? Number.POSITIVE_INFINITY,
    timeoutMs: over.timeoutMs ?? 60_000,
    slots: new ProbeSlots(2),
    lifetime: over.lifetime ?? new AbortController().signal,
    retryMs: 20,
    maxRetryMs: 40,
    ...(over.now ? { now: over.now } : {}),
  });
}

describe('ProbedFact', () => {
  it('knows nothing until a run answers; one run at a time; an answer holds for holdsFor', async () => {
    let now = 0;
    const m = manual<string>();
    const f = fact(m.probe, { holdsMs: 1000, now: () => now });
    expect(f.view()).toEqual({ running: false });
    f.refresh();
    f.refresh();
    await waitFor('the first run', () => m.runs.length === 1);
    expect(f.view()).toEqual({ running: true });
    m.runs[0]!.answer({ answered: true, value: 'v1' });
    await f.settled();
    expect(f.view()).toMatchObject({ answer: { value: 'v1' }, running: false });
    now = 999;
    f.refresh();
    expect(m.runs).toHaveLength(1);
    now = 1000;
    f.refresh();
    await waitFor('the re-check', () => m.runs.length === 2);
    // While it runs, the last answer is still what readers get.
    expect(f.view()).toMatchObject({ answer: { value: 'v1' }, running: true });
    m.runs[1]!.answer({ answered: true, value: 'v2' });
    await f.settled();
    expect(f.view().answer?.value).toBe('v2');
  });

  it('a run cut short at its budget keeps the earlier answer, says so, and is retried by itself', async () => {
    let calls = 0;
    const f = fact<string>(
      async (deadline) => {
        calls++;
        if (calls === 1) return { answered: true, value: 'good' };
        // Runs after the first never answer: the budget cuts them short.
        await new Promise((resolve) => deadline.addEventListener('abort', resolve));
        return { answered: true, value: 'too late' };
      },
      { timeoutMs: 50, holdsMs: 0 },
    );
    f.refresh();
    await f.settled();
    f.refresh();
    await f.settled();
    expect(f.view()).toMatchObject({
      answer: { value: 'good' },
      missed: { why: 'probe timed out after 50ms' },
    });
    // Retried in the background with nobody asking.
    await waitFor('two retries', () => calls >= 4);
    expect(f.view().answer?.value).toBe('good');
  });

  it('a run that gives no answer is not an answer: nothing known, retried until one comes', async () => {
    let calls = 0;
    const f = fact<string>(async () =>
      ++calls < 3 ? { answered: false, why: 'ended by SIGKILL' } : { answered: true, value: 'v' },
    );
    f.refresh();
    await f.settled();
    expect(f.view()).toMatchObject({ missed: { why: 'ended by SIGKILL' } });
    expect(f.view().answer).toBeUndefined();
    await waitFor('the retries to get an answer', () => f.view().answer?.value === 'v');
    expect(f.view().missed).toBeUndefined();
  });

  it('the end of its lifetime aborts the running probe and stops retries', async () => {
    const lifetime = new AbortController();
    const m = manual<string>();
    const f = fact(m.probe, { lifetime: lifetime.signal });
    f.refresh();
    await waitFor('the run', () => m.runs.length === 1);
    lifetime.abort();
    expect(m.runs[0]!.deadline.aborted).toBe(true);
    await f.settled();
    f.refresh(true);
    expect(m.runs).toHaveLength(1);
    expect(f.view()).toEqual({ running: false });
  });
});

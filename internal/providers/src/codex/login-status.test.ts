import { describe, expect, it } from 'vitest';
import { interpretLoginStatus, probeLoginStatus } from './login-status.js';

describe('codex login status', () => {
  it('rc 1 with "Not logged in" (the real 0.169 output) is unauthenticated, noting env keys', () => {
    const r = interpretLoginStatus({ ok: false, output: 'Not logged in' });
    expect(r.state).toBe('unauthenticated');
    expect(r.detail).toContain('OPENAI_API_KEY');
  });
  it('rc 0 is authenticated, keeping the method but not the masked key', () => {
    expect(
      interpretLoginStatus({ ok: true, output: 'Logged in using an API key - sk-proj-***ABCDE' }),
    ).toEqual({ state: 'authenticated', detail: 'logged in using an API key' });
    expect(interpretLoginStatus({ ok: true, output: 'Logged in using ChatGPT' }).detail).toBe(
      'logged in using ChatGPT',
    );
  });
  it('anything else (a crash, a timeout) is unknown', () => {
    expect(interpretLoginStatus({ ok: false, output: '' })).toMatchObject({ state: 'unknown' });
    // Cut short: what it printed before the deadline is not read as an answer.
    expect(interpretLoginStatus({ ok: false, output: 'Not logged in', timedOut: true })).toEqual({
      state: 'unknown',
      detail: 'codex login status: probe timed out',
    });
  });
  it('with isolate_home the daemon login says nothing about sessions', async () => {
    const r = await probeLoginStatus(
      '/nonexistent',
      {},
      {
        isolateHome: true,
        deadline: new AbortController().signal,
      },
    );
    expect(r.state).toBe('unknown');
    expect(r.detail).toContain('isolate_home');
  });
});

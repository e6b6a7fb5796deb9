/**
 * The daemon's rate limits and the SDK's retry, end to end: the daemon
 * refuses a StartSession beyond its `rate_limits.start_session` burst with
 * RESOURCE_EXHAUSTED and a `grpc-retry-pushback-ms` trailer, and the SDK
 * waits at least that long and retries, so a burst of starts gets through.
 * pushback.test.ts covers the SDK side on its own, against a stand-in.
 */

import { useDaemon } from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';
import { closeClients, sdkClient } from './helpers.js';

// One start a second, no burst beyond it.
const bridge = useDaemon({
  config: { rate_limits: { start_session: { per_minute: 60, burst: 1 } } },
  fakeProviders: { echo: ['echo'] },
});

describe('a StartSession beyond the rate limit', () => {
  it('is refused with a pushback, which the SDK waits out and retries: both starts succeed', async () => {
    const c = sdkClient(bridge, { jwt: { subject: 'bursty' } });
    const mark = bridge.daemon.audit.mark();
    const started = await Promise.all(
      [0, 1].map(() => c.startSession({ provider: 'echo', repoPath: bridge.daemon.repo })),
    );
    expect(started.map((s) => s.status)).toEqual(['RUNNING', 'RUNNING']);
    const starts = bridge.daemon.audit
      .since(mark)
      .filter((r) => r.method === 'StartSession' && r.sub === 'bursty');
    const refused = starts.filter((r) => r.outcome === 'deny');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ reason: 'rate_limited' });
    // The retry (the start recorded last: records are written as calls end)
    // came no sooner than the bucket refilled, a token a second: the SDK
    // honoured the pushback; retrying sooner would have been refused again.
    const allowed = starts.filter((r) => r.outcome === 'allow');
    expect(allowed).toHaveLength(2);
    const retry = allowed.at(-1)!;
    expect(Date.parse(retry.time) - Date.parse(refused[0]!.time)).toBeGreaterThanOrEqual(500);
    for (const s of started) await c.stopSession(s.sessionId, { force: true });
    closeClients();
  });
});

/**
 * F18: a session store at its bound (`storage.max_size`). An agent's output
 * fills the store past a 1 MiB bound: a new session is refused
 * RESOURCE_EXHAUSTED with a message naming the bound and what to do, and
 * leaves nothing (no session, no process); the running session goes on,
 * its input answered; the metrics say how full the store is. Once the
 * ended session leaves the store (its retention), sessions start again.
 */
import { codeOf, scrapeMetrics, status, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;
const LINES = 20_000;

const bridge = useDaemon({
  config: {
    storage: { max_size: '1MiB' },
    metrics: { listen: '127.0.0.1:0' },
    // Every line stays in the ring, so in the store: about 4 MiB of them.
    sessions: { event_buffer_size: LINES + 100, event_buffer_bytes: '64MiB', retention: '2s' },
  },
  fakeProviders: { lines: ['lines', String(LINES), '100'], echo: ['echo'] },
});

const list = () =>
  bridge.call((c) => c.listSessions, { projectId: '', statuses: [], pageSize: 100, pageToken: '' });

async function storeMetrics(): Promise<{ used: number; max: number }> {
  const { daemon, pki } = bridge;
  const m = await scrapeMetrics(daemon.metricsPort!, pki.ca.certPem, pki.client);
  return {
    used: m.get('bridge_store_used_bytes') ?? -1,
    max: m.get('bridge_store_max_bytes') ?? -1,
  };
}

describe('F18 a session store at its bound', () => {
  it('F18 refuses new sessions RESOURCE_EXHAUSTED (store_full) while running ones go on, and starts again once the store has room', async () => {
    const sessions = bridge.sessions();
    expect((await storeMetrics()).max).toBe(MiB);
    const big = await sessions.start('lines');
    await waitFor(
      'the agent to print its lines, committed',
      async () => Number((await big.get()).lastSeq) >= LINES + 2,
      60_000,
    );
    const full = await storeMetrics();
    expect(full.used).toBeGreaterThanOrEqual(MiB);

    const before = await list();
    const refused = sessions.start('echo');
    expect(await codeOf(refused)).toBe(status.RESOURCE_EXHAUSTED);
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toContain('the session store is full');
    expect(message).toContain('storage.max_size 1.0 MiB');
    expect(message).toContain('sessions.retention');
    const after = await list();
    expect(after.sessions.map((s) => s.sessionId)).toEqual(before.sessions.map((s) => s.sessionId));

    // The running session goes on: its input is recorded and answered.
    await big.send('still here');
    const echoed = await big.events((all) =>
      all.some((e) => e.text === 'echo: still here' && e.type === EventType.EVENT_TYPE_STDOUT),
    );
    expect(echoed.at(-1)?.text).toBe('echo: still here');
    expect((await big.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);

    // Once it has ended and its retention passed, the store has room again.
    await big.stop();
    await waitFor(
      'the ended session to leave the store',
      async () => (await storeMetrics()).used < MiB,
      30_000,
    );
    const next = await sessions.start('echo');
    expect((await next.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await next.stop();
  });
});

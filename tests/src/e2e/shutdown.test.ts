import { randomUUID } from 'node:crypto';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  codeOf,
  collect,
  connect,
  createTestPki,
  descendants,
  isAlive,
  mintToken,
  startDaemon,
  status,
  streamEvents,
  waitFor,
} from '../harness/index.js';

describe('daemon shutdown', () => {
  it('on SIGTERM: streams get terminal events, children stop within the grace period, exit 0, nothing left behind', async () => {
    const pki = await createTestPki();
    const daemon = await startDaemon({
      pki,
      config: { sessions: { stop_grace_period: '1s' } },
      fakeProviders: { stubborn: ['ignore-term'], echo: ['echo'] },
    });
    const client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
    const md = bearer(
      await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha' }),
    );
    const ids: string[] = [];
    for (const provider of ['stubborn', 'echo', 'mock']) {
      const sessionId = randomUUID();
      await call(
        client,
        (c) => c.startSession,
        { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider, agentOpts: {} },
        md,
      );
      ids.push(sessionId);
    }
    await waitFor(() => descendants(daemon.pid).length >= 4);
    const children = descendants(daemon.pid);
    expect(children.length).toBeGreaterThanOrEqual(4); // three agents plus the stubborn one's grandchild
    const streams = ids.map((sessionId) =>
      collect(streamEvents(client, { sessionId, afterSeq: 0n }, md)),
    );
    await new Promise((r) => setTimeout(r, 100));

    daemon.proc.kill('SIGTERM');
    const results = await Promise.all(streams);
    for (const r of results) {
      expect(r.error).toBeUndefined();
      const last = r.events.at(-1)!;
      expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
      expect(last.data).toMatchObject({ reason: 'shutdown' });
    }
    const { code } = await daemon.exited;
    expect(code).toBe(0);
    for (const pid of children) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(await codeOf(call(client, (c) => c.health, {}, md, 2000))).toBe(status.UNAVAILABLE);
    client.close();
    await daemon.stop();
  });
});

import { randomUUID } from 'node:crypto';
import type { BridgeServiceClient } from '@agent-bridge/proto';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  codeOf,
  collect,
  connect,
  createTestPki,
  mintToken,
  startDaemon,
  status,
  streamEvents,
  type TestDaemon,
  type TestPki,
  waitFor,
} from '../harness/index.js';

// sessions.idle_timeout, sessions.retention and sessions.subscriber_ttl, set short.
let pki: TestPki;
let daemon: TestDaemon;
let client: BridgeServiceClient;
let md: ReturnType<typeof bearer>;

beforeAll(async () => {
  pki = await createTestPki();
  daemon = await startDaemon({
    pki,
    config: { sessions: { idle_timeout: '800ms', retention: '1500ms', subscriber_ttl: '1s' } },
    fakeProviders: { echo: ['echo'] },
  });
  client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  md = bearer(await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha' }));
});

afterAll(async () => {
  client?.close();
  await daemon?.stop();
});

async function start(): Promise<string> {
  const sessionId = randomUUID();
  await call(
    client,
    (c) => c.startSession,
    { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider: 'echo', agentOpts: {} },
    md,
  );
  return sessionId;
}

describe('session timers', () => {
  it('idle_timeout stops a session with no input, output or subscriber, saying why', async () => {
    const sessionId = await start();
    const ended = await waitFor(async () => {
      const s = await call(client, (c) => c.getSession, { sessionId }, md);
      return s.status === SessionStatus.SESSION_STATUS_STOPPED;
    }, 10_000);
    expect(ended).toBe(true);
    const { events } = await collect(streamEvents(client, { sessionId, afterSeq: 0n }, md));
    expect(events.at(-1)).toMatchObject({
      type: EventType.EVENT_TYPE_SESSION_STOPPED,
      data: { reason: 'idle_timeout' },
    });
    expect(events.at(-1)?.text).toContain('idle timeout');
  });

  it('an open subscriber keeps a session from going idle', async () => {
    const sessionId = await start();
    const stream = streamEvents(client, { sessionId }, md);
    const reading = collect(stream);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await call(client, (c) => c.getSession, { sessionId }, md)).status).toBe(
      SessionStatus.SESSION_STATUS_RUNNING,
    );
    stream.cancel();
    await reading;
  });

  it('a stopped session stays readable for the retention period, then is freed', async () => {
    const sessionId = await start();
    await call(client, (c) => c.stopSession, { sessionId, force: false }, md);
    expect(await codeOf(call(client, (c) => c.getSession, { sessionId }, md))).toBe('ok');
    const freed = await waitFor(
      async () =>
        (await codeOf(call(client, (c) => c.getSession, { sessionId }, md))) === status.NOT_FOUND,
      10_000,
    );
    expect(freed).toBe(true);
    const list = await call(
      client,
      (c) => c.listSessions,
      { projectId: '', statuses: [], pageSize: 0, pageToken: '' },
      md,
    );
    expect(list.sessions.map((s) => s.sessionId)).not.toContain(sessionId);
  });

  it('an idle subscriber cursor expires after subscriber_ttl', async () => {
    const sessionId = await start();
    await call(client, (c) => c.sendInput, { sessionId, text: 'x', idempotencyKey: '' }, md);
    await call(client, (c) => c.ackEvents, { sessionId, subscriberId: 'cp', ackSeq: 2n }, md);
    const resumed = await collect(
      streamEvents(client, { sessionId, subscriberId: 'cp' }, md),
      () => true,
    );
    expect(Number(resumed.events[0]?.seq)).toBe(3);
    // Keep the session busy (not idle) while the cursor ages out.
    for (let i = 0; i < 6; i++) {
      await call(
        client,
        (c) => c.sendInput,
        { sessionId, text: `tick ${i}`, idempotencyKey: '' },
        md,
      );
      await new Promise((r) => setTimeout(r, 300));
    }
    const expired = await collect(
      streamEvents(client, { sessionId, subscriberId: 'cp' }, md),
      () => true,
    );
    expect(Number(expired.events[0]?.seq)).toBe(1);
    await call(client, (c) => c.stopSession, { sessionId, force: true }, md);
  });
});

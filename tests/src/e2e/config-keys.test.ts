import { randomUUID } from 'node:crypto';
import { type BridgeServiceClient, EventType } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  call,
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

// Keys not covered elsewhere: sessions.event_buffer_bytes, sessions.max_subscribers,
// providers.<id>.env, logging.level and logging.redact_patterns.
let pki: TestPki;
let daemon: TestDaemon;
let client: BridgeServiceClient;
let md: ReturnType<typeof bearer>;
let token: string;

beforeAll(async () => {
  pki = await createTestPki();
  daemon = await startDaemon({
    pki,
    config: {
      sessions: { event_buffer_size: 100_000, event_buffer_bytes: '64KiB', max_subscribers: 2 },
      providers: { envcheck: { env: { AGENT_API_BASE: 'http://127.0.0.1:1/v1' } } },
      logging: { level: 'debug', redact_patterns: ['(?i)customer-id=\\S+'] },
    },
    fakeProviders: {
      lines: ['lines', '300', '1000'],
      envcheck: ['argv'],
      secrets: ['secrets'],
      echo: ['echo'],
    },
  });
  client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  token = await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha' });
  md = bearer(token);
});

afterAll(async () => {
  client?.close();
  await daemon?.stop();
});

async function start(provider: string): Promise<string> {
  const sessionId = randomUUID();
  await call(
    client,
    (c) => c.startSession,
    { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider, agentOpts: {} },
    md,
  );
  return sessionId;
}

describe('config keys change behaviour', () => {
  it('sessions.event_buffer_bytes bounds the ring by bytes, not only by count', async () => {
    const sessionId = await start('lines');
    await waitFor(
      async () =>
        Number((await call(client, (c) => c.getSession, { sessionId }, md)).lastSeq) >= 302,
    );
    const s = await call(client, (c) => c.getSession, { sessionId }, md);
    const retained = Number(s.lastSeq) - Number(s.oldestSeq) + 1;
    // 300 lines of 1000 bytes fit the 100k-event count easily; only the 64 KiB byte bound evicts.
    expect(retained).toBeGreaterThan(40);
    expect(retained).toBeLessThan(70); // 64 KiB / (1000 bytes + 64 overhead) ≈ 61
    expect(Number(s.oldestSeq)).toBeGreaterThan(1);
  });

  it('sessions.max_subscribers bounds concurrent readers of a session', async () => {
    const sessionId = await start('echo');
    const a = streamEvents(client, { sessionId }, md);
    const b = streamEvents(client, { sessionId }, md);
    const ra = collect(a);
    const rb = collect(b);
    await waitFor(
      async () =>
        (await call(client, (c) => c.getSession, { sessionId }, md)).subscriberCount === 2,
    );
    const third = await collect(streamEvents(client, { sessionId }, md));
    expect(third.error?.code).toBe(status.RESOURCE_EXHAUSTED);
    a.cancel();
    b.cancel();
    await Promise.all([ra, rb]);
    await waitFor(
      async () =>
        (await call(client, (c) => c.getSession, { sessionId }, md)).subscriberCount === 0,
    );
    const fourth = await collect(streamEvents(client, { sessionId }, md), () => true);
    expect(fourth.error).toBeUndefined();
  });

  it('providers.<id>.env reaches the child explicitly; the daemon environment does not', async () => {
    const sessionId = await start('envcheck');
    const { events } = await collect(streamEvents(client, { sessionId, afterSeq: 0n }, md), (e) =>
      e.text.startsWith('{"cwd"'),
    );
    const { cwd, env } = JSON.parse(events.at(-1)!.text) as {
      cwd: string;
      env: Record<string, string>;
    };
    expect(cwd).toBe(daemon.repo);
    expect(env.AGENT_API_BASE).toBe('http://127.0.0.1:1/v1');
    expect(env.PATH).toBeTruthy();
    expect(env.BRIDGE_READY_FD).toBeUndefined();
    expect(Object.keys(env).filter((k) => k.startsWith('npm_') || k.startsWith('VITEST'))).toEqual(
      [],
    );
  });

  it('logging.redact_patterns and the built-in patterns redact events and logs', async () => {
    const sessionId = await start('secrets');
    await call(
      client,
      (c) => c.sendInput,
      { sessionId, text: 'customer-id=C-998877 please', idempotencyKey: '' },
      md,
    );
    const { events } = await collect(streamEvents(client, { sessionId, afterSeq: 0n }, md), (e) =>
      e.text.startsWith('echo:'),
    );
    const text = events.map((e) => e.text).join('\n');
    expect(text).not.toContain('sk-live-1234567890');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(text).not.toContain('C-998877');
    expect(text).toContain('[REDACTED]');
    expect(events.find((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)?.text).toBe(
      '[REDACTED] please',
    );
    // logging.level debug logs each authenticated call; the token never appears.
    expect(daemon.output()).toContain('call authenticated');
    expect(daemon.output()).not.toContain(token);
  });
});

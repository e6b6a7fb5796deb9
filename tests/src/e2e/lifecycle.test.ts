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
  isAlive,
  mintToken,
  startDaemon,
  status,
  streamEvents,
  type TestDaemon,
  type TestPki,
  waitFor,
} from '../harness/index.js';

let pki: TestPki;
let daemon: TestDaemon;
let client: BridgeServiceClient;
let md: ReturnType<typeof bearer>;

beforeAll(async () => {
  pki = await createTestPki();
  daemon = await startDaemon({ pki });
  client = connect({ port: daemon.port, caPem: pki.ca.certPem, client: pki.client });
  md = bearer(await mintToken({ privatePem: pki.issuers.control.privatePem, project: 'alpha' }));
});

afterAll(async () => {
  client?.close();
  await daemon?.stop();
});

describe('session lifecycle through every RPC (mock agent, real mTLS + JWT)', () => {
  it('starts, takes input, streams, lists, acks and stops a session', async () => {
    const sessionId = randomUUID();
    const started = await call(
      client,
      (c) => c.startSession,
      {
        projectId: 'alpha',
        sessionId,
        repoPath: daemon.repo,
        provider: 'mock',
        agentOpts: {},
      },
      md,
    );
    expect(started.sessionId).toBe(sessionId);
    expect(started.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(started.createdAt).toBeInstanceOf(Date);

    const got = await call(client, (c) => c.getSession, { sessionId }, md);
    expect(got).toMatchObject({
      sessionId,
      projectId: 'alpha',
      provider: 'mock',
      status: SessionStatus.SESSION_STATUS_RUNNING,
      repoPath: daemon.repo,
    });
    expect(got.pid).toBeGreaterThan(1);
    expect(isAlive(got.pid)).toBe(true);

    // A live reader first, so it sees replay and then the live tail.
    const live = collect(
      streamEvents(client, { sessionId, afterSeq: 0n }, md),
      (e) => e.type === EventType.EVENT_TYPE_TURN_COMPLETED,
    );
    const sent = await call(
      client,
      (c) => c.sendInput,
      { sessionId, text: 'hello bridge', idempotencyKey: '' },
      md,
    );
    expect(sent.accepted).toBe(true);
    const { events } = await live;
    const seqs = events.map((e) => Number(e.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(events[0]?.type).toBe(EventType.EVENT_TYPE_SESSION_STARTED);
    const input = events.find((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED);
    expect(input?.seq).toBe(sent.seq);
    expect(input?.text).toBe('hello bridge');
    // The mock speaks claude's stream-json: a turn of deltas, the message, the result.
    const types = events.map((e) => e.type);
    const echoed = events.find(
      (e) => e.type === EventType.EVENT_TYPE_AGENT_MESSAGE && e.text.includes('hello bridge'),
    );
    expect(Number(echoed?.seq)).toBeGreaterThan(Number(sent.seq));
    const deltas = events.filter((e) => e.type === EventType.EVENT_TYPE_AGENT_MESSAGE_DELTA);
    expect(deltas.map((e) => e.text).join('')).toBe(echoed?.text);
    expect(types.indexOf(EventType.EVENT_TYPE_TURN_STARTED)).toBeLessThan(
      types.indexOf(EventType.EVENT_TYPE_AGENT_MESSAGE_DELTA),
    );
    const done = events.at(-1)!;
    expect(done.turnId).toBe(echoed?.turnId);
    expect(done.data).toMatchObject({ status: 'completed', usage: { input_tokens: 12 } });
    for (const e of events) {
      expect(e).toMatchObject({ sessionId, projectId: 'alpha', provider: 'mock' });
      expect(e.timestamp).toBeInstanceOf(Date);
    }

    const list = await call(
      client,
      (c) => c.listSessions,
      { projectId: '', statuses: [], pageSize: 0, pageToken: '' },
      md,
    );
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);

    const acked = await call(
      client,
      (c) => c.ackEvents,
      { sessionId, subscriberId: 'cp-1', ackSeq: sent.seq },
      md,
    );
    expect(acked.ackSeq).toBe(sent.seq);

    const health = await call(client, (c) => c.health, {}, md);
    expect(health.status).toBe('serving');
    expect(health.activeSessions).toBeGreaterThanOrEqual(1);
    expect(health.serverInstanceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(health.providers.find((p) => p.provider === 'mock')?.available).toBe(true);

    const providers = await call(client, (c) => c.listProviders, {}, md);
    expect(providers.providers.find((p) => p.id === 'mock')).toMatchObject({
      available: true,
      capabilities: { structuredEvents: true, multiTurn: true, interrupt: true },
    });

    // Between turns there is nothing to interrupt; the session stays as it was.
    expect(await call(client, (c) => c.interruptTurn, { sessionId }, md)).toMatchObject({
      interrupted: false,
      turnId: '',
    });

    const stopped = await call(client, (c) => c.stopSession, { sessionId, force: false }, md);
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    expect(await waitFor(() => !isAlive(got.pid))).toBe(true);

    // The stopped session stays readable, and its stream completes after the terminal event.
    const after = await collect(streamEvents(client, { sessionId, afterSeq: 0n }, md));
    expect(after.error).toBeUndefined();
    const last = after.events.at(-1)!;
    expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    expect(last.done).toBe(true);
    expect(last.data).toMatchObject({ reason: 'stop_requested' });
    const final = await call(client, (c) => c.getSession, { sessionId }, md);
    expect(final.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    expect(final.stoppedAt).toBeInstanceOf(Date);
    expect(final.lastSeq).toBe(last.seq);

    // Stopping again is not an error.
    const again = await call(client, (c) => c.stopSession, { sessionId, force: false }, md);
    expect(again.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
  });

  it('batches carry the same events as single-event streams', async () => {
    const sessionId = randomUUID();
    await call(
      client,
      (c) => c.startSession,
      { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider: 'mock', agentOpts: {} },
      md,
    );
    await call(client, (c) => c.sendInput, { sessionId, text: 'batch me', idempotencyKey: '' }, md);
    await call(client, (c) => c.stopSession, { sessionId, force: false }, md);
    const single = await collect(streamEvents(client, { sessionId, afterSeq: 0n }, md));
    const batches = await new Promise<number[]>((resolve, reject) => {
      const seqs: number[] = [];
      const s = client.streamEventBatches({ sessionId, afterSeq: 0n, subscriberId: '' }, md);
      s.on('data', (b: { events: { seq: bigint }[] }) =>
        seqs.push(...b.events.map((e) => Number(e.seq))),
      );
      s.on('end', () => resolve(seqs));
      s.on('error', reject);
    });
    expect(batches).toEqual(single.events.map((e) => Number(e.seq)));
  });

  it('retries of an identical StartSession return the same session; other parameters are ALREADY_EXISTS', async () => {
    const req = {
      projectId: 'alpha',
      sessionId: randomUUID(),
      repoPath: daemon.repo,
      provider: 'mock',
      agentOpts: {},
    };
    const [a, b] = await Promise.all([
      call(client, (c) => c.startSession, req, md),
      call(client, (c) => c.startSession, req, md),
    ]);
    expect(a.createdAt).toEqual(b.createdAt);
    const s = await call(client, (c) => c.getSession, { sessionId: req.sessionId }, md);
    const list = await call(
      client,
      (c) => c.listSessions,
      { projectId: 'alpha', statuses: [], pageSize: 1000, pageToken: '' },
      md,
    );
    expect(list.sessions.filter((x) => x.sessionId === req.sessionId)).toHaveLength(1);
    expect(
      await codeOf(call(client, (c) => c.startSession, { ...req, agentOpts: { model: 'x' } }, md)),
    ).toBe(status.ALREADY_EXISTS);
    expect(
      await codeOf(call(client, (c) => c.startSession, { ...req, provider: 'other' }, md)),
    ).toBe(status.ALREADY_EXISTS);
    expect((await call(client, (c) => c.getSession, { sessionId: req.sessionId }, md)).pid).toBe(
      s.pid,
    );
    await call(client, (c) => c.stopSession, { sessionId: req.sessionId, force: true }, md);
  });
});

import { randomUUID } from 'node:crypto';
import {
  codeOf,
  collect,
  isAlive,
  status,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon();

describe('session lifecycle through every RPC (mock agent, real mTLS + JWT)', () => {
  it('starts, takes input, streams, lists, acks and stops a session', async () => {
    const sessionId = randomUUID();
    const started = await bridge.call((c) => c.startSession, {
      projectId: 'alpha',
      sessionId,
      repoPath: bridge.daemon.repo,
      provider: 'mock',
      agentOpts: {},
    });
    expect(started.sessionId).toBe(sessionId);
    expect(started.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(started.createdAt).toBeInstanceOf(Date);

    const got = await bridge.call((c) => c.getSession, { sessionId });
    expect(got).toMatchObject({
      sessionId,
      projectId: 'alpha',
      provider: 'mock',
      status: SessionStatus.SESSION_STATUS_RUNNING,
      repoPath: bridge.daemon.repo,
    });
    expect(got.pid).toBeGreaterThan(1);
    expect(isAlive(got.pid)).toBe(true);

    // A live reader first, so it sees replay and then the live tail.
    const live = collect(
      bridge.stream({ sessionId, afterSeq: 0n }),
      (e) => e.type === EventType.EVENT_TYPE_TURN_COMPLETED,
    );
    const sent = await bridge.call((c) => c.sendInput, {
      sessionId,
      text: 'hello bridge',
      idempotencyKey: '',
    });
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

    const list = await bridge.call((c) => c.listSessions, {
      projectId: '',
      statuses: [],
      pageSize: 0,
      pageToken: '',
    });
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);

    const acked = await bridge.call((c) => c.ackEvents, {
      sessionId,
      subscriberId: 'cp-1',
      ackSeq: sent.seq,
      historyId: '',
    });
    expect(acked.ackSeq).toBe(sent.seq);

    const health = await bridge.call((c) => c.health, {});
    expect(health.status).toBe('serving');
    expect(health.activeSessions).toBeGreaterThanOrEqual(1);
    // The room left for this project: the limits and what counts against them.
    expect(health.sessionLimit).toBe(20);
    expect(health.projectSessionLimit).toBe(5);
    expect(health.projectActiveSessions).toBeGreaterThanOrEqual(1);
    expect(health.projectActiveSessions).toBeLessThanOrEqual(health.activeSessions);
    expect(health.serverInstanceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(health.historyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(health.historyId).not.toBe(health.serverInstanceId);
    expect(health.providers.find((p) => p.provider === 'mock')?.available).toBe(true);

    const providers = await bridge.call((c) => c.listProviders, {});
    expect(providers.providers.find((p) => p.id === 'mock')).toMatchObject({
      available: true,
      capabilities: { structuredEvents: true, multiTurn: true, interrupt: true },
    });

    // Between turns there is nothing to interrupt; the session stays as it was.
    expect(await bridge.call((c) => c.interruptTurn, { sessionId })).toMatchObject({
      interrupted: false,
      turnId: '',
    });

    const stopped = await bridge.call((c) => c.stopSession, { sessionId, force: false });
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    await waitFor(`agent ${got.pid} to exit`, () => !isAlive(got.pid));

    // The stopped session stays readable, and its stream completes after the terminal event.
    const after = await collect(bridge.stream({ sessionId, afterSeq: 0n }));
    expect(after.error).toBeUndefined();
    const last = after.events.at(-1)!;
    expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
    expect(last.done).toBe(true);
    expect(last.data).toMatchObject({ reason: 'stop_requested' });
    const final = await bridge.call((c) => c.getSession, { sessionId });
    expect(final.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    expect(final.stoppedAt).toBeInstanceOf(Date);
    expect(final.lastSeq).toBe(last.seq);

    // Stopping again is not an error.
    const again = await bridge.call((c) => c.stopSession, { sessionId, force: false });
    expect(again.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
  });

  it('batches carry the same events as single-event streams', async () => {
    const { sessionId } = await bridge.sessions().start('mock');
    await bridge.call((c) => c.sendInput, { sessionId, text: 'batch me', idempotencyKey: '' });
    await bridge.call((c) => c.stopSession, { sessionId, force: false });
    const single = await collect(bridge.stream({ sessionId, afterSeq: 0n }));
    const batches = await within(
      'the StreamEventBatches call to end',
      new Promise<number[]>((resolve, reject) => {
        const seqs: number[] = [];
        const s = bridge.client.streamEventBatches(
          { sessionId, afterSeq: 0n, subscriberId: '' },
          bridge.md,
        );
        s.on('data', (b: { events: { seq: bigint }[] }) =>
          seqs.push(...b.events.map((e) => Number(e.seq))),
        );
        s.on('end', () => resolve(seqs));
        s.on('error', reject);
      }),
      20_000,
    );
    expect(batches).toEqual(single.events.map((e) => Number(e.seq)));
  });

  it('retries of an identical StartSession return the same session; other parameters are ALREADY_EXISTS', async () => {
    const req = {
      projectId: 'alpha',
      sessionId: randomUUID(),
      repoPath: bridge.daemon.repo,
      provider: 'mock',
      agentOpts: {},
    };
    const [a, b] = await Promise.all([
      bridge.call((c) => c.startSession, req),
      bridge.call((c) => c.startSession, req),
    ]);
    expect(a.createdAt).toEqual(b.createdAt);
    const s = await bridge.call((c) => c.getSession, { sessionId: req.sessionId });
    const list = await bridge.call((c) => c.listSessions, {
      projectId: 'alpha',
      statuses: [],
      pageSize: 1000,
      pageToken: '',
    });
    expect(list.sessions.filter((x) => x.sessionId === req.sessionId)).toHaveLength(1);
    expect(
      await codeOf(bridge.call((c) => c.startSession, { ...req, agentOpts: { model: 'x' } })),
    ).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(bridge.call((c) => c.startSession, { ...req, provider: 'other' }))).toBe(
      status.ALREADY_EXISTS,
    );
    expect((await bridge.call((c) => c.getSession, { sessionId: req.sessionId })).pid).toBe(s.pid);
    await bridge.call((c) => c.stopSession, { sessionId: req.sessionId, force: true });
  });
});

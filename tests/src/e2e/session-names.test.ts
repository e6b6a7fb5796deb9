import { randomUUID } from 'node:crypto';
import { collect, status, useDaemon } from '@agent-bridge/harness';
import { EventType, type StartSessionRequest } from '@agent-bridge/proto';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon();

const start = (over: Partial<StartSessionRequest>) =>
  bridge.call((c) => c.startSession, {
    projectId: 'alpha',
    sessionId: randomUUID(),
    repoPath: bridge.daemon.repo,
    provider: 'mock',
    agentOpts: {},
    ...over,
  });

const refused = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('the call was accepted');
    },
    (err: ServiceError) => ({ code: err.code, details: err.details }),
  );

const listed = async () =>
  (
    await bridge.call((c) => c.listSessions, {
      projectId: '',
      statuses: [],
      pageSize: 0,
      pageToken: '',
    })
  ).sessions;

describe('session names and roles over gRPC', () => {
  it('are shown by GetSession, ListSessions and SESSION_STARTED', async () => {
    const { sessionId } = await start({ name: 'planner', role: 'lead' });
    expect(await bridge.call((c) => c.getSession, { sessionId })).toMatchObject({
      name: 'planner',
      role: 'lead',
    });
    expect((await listed()).find((s) => s.sessionId === sessionId)).toMatchObject({
      name: 'planner',
      role: 'lead',
    });
    const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }), () => true);
    expect(events[0]?.type).toBe(EventType.EVENT_TYPE_SESSION_STARTED);
    expect(events[0]?.data).toMatchObject({ name: 'planner', role: 'lead' });
    await bridge.call((c) => c.stopSession, { sessionId, force: false });
  });

  it('a bad name or role is INVALID_ARGUMENT with the rule, and starts nothing', async () => {
    const before = await listed();
    for (const [over, field] of [
      [{ name: 'two words' }, 'name'],
      [{ name: randomUUID() }, 'name'],
      [{ role: '../x' }, 'role'],
    ] as const) {
      const { code, details } = await refused(start(over));
      expect(code).toBe(status.INVALID_ARGUMENT);
      expect(details).toMatch(new RegExp(`^${field} `));
    }
    expect(await listed()).toEqual(before);
  });

  it('a name a live session of the project holds is ALREADY_EXISTS naming that session', async () => {
    const { sessionId } = await start({ name: 'solo' });
    const before = await listed();
    const { code, details } = await refused(start({ name: 'solo' }));
    expect(code).toBe(status.ALREADY_EXISTS);
    expect(details).toContain(sessionId);
    expect(await listed()).toEqual(before);
    await bridge.call((c) => c.stopSession, { sessionId, force: false });
    const again = await start({ name: 'solo' });
    expect(await bridge.call((c) => c.getSession, { sessionId: again.sessionId })).toMatchObject({
      name: 'solo',
    });
    await bridge.call((c) => c.stopSession, { sessionId: again.sessionId, force: false });
  });
});

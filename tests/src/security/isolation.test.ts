/**
 * Catalogue row J11: a project only ever sees its own sessions. Another
 * project's session answers NOT_FOUND exactly like a session that does not
 * exist, and a foreign call changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { call, collect, STREAM_WAIT_MS, status, streamEvents, within } from '@agent-bridge/harness';
import {
  type BridgeServiceClient,
  EventType,
  PermissionDecision,
  SessionStatus,
} from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectCallDenied,
  expectUnchanged,
  outcome,
  type Rejection,
  snapshot,
  useWorld,
} from './helpers.js';

const w = useWorld({ project: 'alpha' }); // w.ref is alpha's session
let mdB: Metadata;
let betaSession: string;

beforeAll(async () => {
  mdB = await w.bearerFor('beta');
  betaSession = randomUUID();
  await call(
    w.client,
    (c) => c.startSession,
    {
      projectId: 'beta',
      sessionId: betaSession,
      repoPath: w.daemon.repo,
      provider: 'mock',
      agentOpts: {},
    },
    mdB,
  );
});

function streamOutcome(
  stream: NodeJS.EventEmitter & { cancel(): void },
): Promise<Rejection & { events: number }> {
  return within(
    'the stream to end',
    new Promise((resolve) => {
      let events = 0;
      stream.on('data', () => {
        events++;
      });
      stream.on('error', (e: { code: number; details: string; message: string }) =>
        resolve({ code: e.code, details: e.details, message: e.message, events }),
      );
      stream.on('end', () => resolve({ code: 'ok', details: '', message: '', events }));
    }),
    STREAM_WAIT_MS,
  );
}

type Rpc = [
  label: string,
  method: string,
  rpc: (c: BridgeServiceClient, id: string, md: Metadata) => Promise<Rejection>,
];
const rpcs: Rpc[] = [
  [
    'GetSession',
    'GetSession',
    (c, id, md) => outcome(call(c, (x) => x.getSession, { sessionId: id }, md)),
  ],
  [
    'StopSession',
    'StopSession',
    (c, id, md) => outcome(call(c, (x) => x.stopSession, { sessionId: id, force: true }, md)),
  ],
  [
    'SendInput',
    'SendInput',
    (c, id, md) =>
      outcome(
        call(c, (x) => x.sendInput, { sessionId: id, text: 'from beta', idempotencyKey: 'k1' }, md),
      ),
  ],
  [
    'InterruptTurn',
    'InterruptTurn',
    (c, id, md) => outcome(call(c, (x) => x.interruptTurn, { sessionId: id }, md)),
  ],
  [
    'AckEvents',
    'AckEvents',
    (c, id, md) =>
      outcome(
        call(
          c,
          (x) => x.ackEvents,
          { sessionId: id, subscriberId: 'spy', ackSeq: 2n, historyId: '' },
          md,
        ),
      ),
  ],
  [
    'RespondPermission',
    'RespondPermission',
    (c, id, md) =>
      outcome(
        call(
          c,
          (x) => x.respondPermission,
          {
            sessionId: id,
            requestId: 'perm-1',
            decision: PermissionDecision.PERMISSION_DECISION_ALLOW_ONCE,
            reason: '',
          },
          md,
        ),
      ),
  ],
  [
    'StreamEvents',
    'StreamEvents',
    (c, id, md) => streamOutcome(streamEvents(c, { sessionId: id, subscriberId: 'spy' }, md)),
  ],
  [
    'StreamEvents (after_seq 0)',
    'StreamEvents',
    (c, id, md) => streamOutcome(streamEvents(c, { sessionId: id, afterSeq: 0n }, md)),
  ],
  [
    'StreamEventBatches',
    'StreamEventBatches',
    (c, id, md) => streamOutcome(c.streamEventBatches({ sessionId: id, subscriberId: '' }, md)),
  ],
];

describe('another project’s session is indistinguishable from a missing one', () => {
  it.each(rpcs)(
    'J11 %s with a beta token on an alpha session → NOT_FOUND, same message shape; the audit record tells them apart',
    async (_n, method, rpc) => {
      const before = await snapshot(w);
      const mark = w.daemon.audit.mark();
      const foreign = await rpc(w.client, w.ref, mdB);
      const missingId = randomUUID();
      const missing = await rpc(w.client, missingId, mdB);
      expect(w.daemon.audit.since(mark)).toMatchObject([
        {
          kind: 'call',
          method,
          outcome: 'deny',
          reason: 'session_of_other_project',
          session_id: w.ref,
          project_id: 'beta',
          sub: 'tester',
        },
        {
          kind: 'call',
          method,
          outcome: 'deny',
          reason: 'session_not_found',
          session_id: missingId,
          project_id: 'beta',
        },
      ]);
      expect(foreign.code).toBe(status.NOT_FOUND);
      expect(missing.code).toBe(status.NOT_FOUND);
      expect(foreign.details.replaceAll(w.ref, '<id>')).toBe(
        missing.details.replaceAll(missingId, '<id>'),
      );
      expect(foreign.message.replaceAll(w.ref, '<id>')).toBe(
        missing.message.replaceAll(missingId, '<id>'),
      );
      // Nothing about alpha leaks through the message.
      expect(foreign.details).not.toMatch(/alpha|mock|repos|running|pid/i);
      if ('events' in foreign) expect(foreign.events).toBe(0);
      await expectUnchanged(w, before);
    },
  );

  it('alpha’s session is untouched: running, no foreign input, no foreign ack cursor', async () => {
    const got = await call(w.client, (c) => c.getSession, { sessionId: w.ref }, w.md);
    expect(got.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(got.subscriberCount).toBe(0);
    // "spy" tried to ack seq 2; had it stuck, this stream would start after 2.
    const { events } = await collect(
      streamEvents(w.client, { sessionId: w.ref, subscriberId: 'spy' }, w.md),
      (_e, all) => all.length >= Number(got.lastSeq),
    );
    expect(Number(events[0]?.seq)).toBe(1);
    expect(events.some((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)).toBe(false);
    expect(events.some((e) => e.text.includes('from beta'))).toBe(false);
  });

  it('control: the beta token works on beta’s own session with the same calls', async () => {
    const got = await call(w.client, (c) => c.getSession, { sessionId: betaSession }, mdB);
    expect(got.projectId).toBe('beta');
    const acked = await call(
      w.client,
      (c) => c.ackEvents,
      { sessionId: betaSession, subscriberId: 'spy', ackSeq: 1n, historyId: '' },
      mdB,
    );
    expect(acked.ackSeq).toBe(1n);
  });
});

describe('listing and starting across projects', () => {
  it('ListSessions with the beta token shows only beta’s sessions', async () => {
    const list = await call(
      w.client,
      (c) => c.listSessions,
      { projectId: '', statuses: [], pageSize: 1000, pageToken: '' },
      mdB,
    );
    const ids = list.sessions.map((s) => s.sessionId);
    expect(ids).toContain(betaSession);
    expect(ids).not.toContain(w.ref);
    expect(list.sessions.every((s) => s.projectId === 'beta')).toBe(true);
    const alpha = await call(
      w.client,
      (c) => c.listSessions,
      { projectId: '', statuses: [], pageSize: 1000, pageToken: '' },
      w.md,
    );
    expect(alpha.sessions.map((s) => s.sessionId)).toEqual([w.ref]);
  });

  it('J11 ListSessions with the beta token and project_id alpha → PERMISSION_DENIED', async () => {
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(
        w.client,
        (c) => c.listSessions,
        { projectId: 'alpha', statuses: [], pageSize: 0, pageToken: '' },
        mdB,
      ),
    );
    expect(r.code).toBe(status.PERMISSION_DENIED);
    expectCallDenied(w, mark, 'ListSessions', 'project_mismatch');
  });

  it('J11 StartSession with project_id alpha and a beta token → PERMISSION_DENIED, nothing started', async () => {
    const before = await snapshot(w);
    const beforeB = await snapshot(w, mdB);
    const sessionId = randomUUID();
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(
        w.client,
        (c) => c.startSession,
        { projectId: 'alpha', sessionId, repoPath: w.daemon.repo, provider: 'mock', agentOpts: {} },
        mdB,
      ),
    );
    expect(r.code).toBe(status.PERMISSION_DENIED);
    expectCallDenied(w, mark, 'StartSession', 'project_mismatch');
    await expectUnchanged(w, before);
    expect(await snapshot(w, mdB)).toEqual(beforeB);
    const ghost = await outcome(call(w.client, (c) => c.getSession, { sessionId }, mdB));
    expect(ghost.code).toBe(status.NOT_FOUND);
  });

  it('J11 StartSession with an empty project_id → INVALID_ARGUMENT, nothing started', async () => {
    const before = await snapshot(w);
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(
        w.client,
        (c) => c.startSession,
        {
          projectId: '',
          sessionId: randomUUID(),
          repoPath: w.daemon.repo,
          provider: 'mock',
          agentOpts: {},
        },
        mdB,
      ),
    );
    expect(r.code).toBe(status.INVALID_ARGUMENT);
    expectCallDenied(w, mark, 'StartSession', 'project_id_missing');
    await expectUnchanged(w, before);
  });

  it('J11 StartSession by beta reusing alpha’s session id never hands out alpha’s session', async () => {
    // Session ids are global, so the id is taken: the contract says ALREADY_EXISTS
    // ("session_id is in use ... with different parameters"). What must never
    // happen is an OK carrying alpha's session, or a second process.
    const before = await snapshot(w);
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(
        w.client,
        (c) => c.startSession,
        {
          projectId: 'beta',
          sessionId: w.ref,
          repoPath: w.daemon.repo,
          provider: 'mock',
          agentOpts: {},
        },
        mdB,
      ),
    );
    expect(r.code).toBe(status.ALREADY_EXISTS);
    expect(r.details).not.toMatch(/alpha/);
    expectCallDenied(w, mark, 'StartSession', 'session_id_in_use');
    await expectUnchanged(w, before);
  });
});

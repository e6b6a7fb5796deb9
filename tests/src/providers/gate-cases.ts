import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  asked,
  type DaemonFixture,
  expectEveryRequestResolved,
  expectPermission,
  ofType,
  requestIdOf,
  requestsOf,
  respondPermission,
  sessionClient,
  TEST_CALLER,
  turnsDone,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { expect, it } from 'vitest';

/**
 * One agent CLI (a fake one) behind the approval gate with `permissions:
 * ask`, for `gateCases`: how to make it ask, what its request carries, and
 * what it does with the answer.
 */
export interface GateCli {
  bridge: DaemonFixture;
  /**
   * Its provider ids: `permissions: ask`; the same with `permission_timeout:
   * 1s` (default deny); and `permissions: ask` with its tool in `auto_allow`.
   */
  providers: { ask: string; timeout: string; auto: string };
  /** The input that makes it ask to use its tool (once per turn). */
  input: string;
  /** What every PERMISSION_REQUESTED of that input carries (`tool` included). */
  requested: Record<string, unknown>;
  /** Whether the tool ran in `repo` (its side effect is there). */
  ran(repo: string): boolean;
  /**
   * Checks that the agent got the refusal: `all` are the session's events to
   * the end of the refused turn, `message` what it was told where its
   * protocol carries one ("denied by the bridge client: <reason>").
   */
  refused(all: SessionEvent[], message: string, sessionId: string): void;
  /** Checks that the tool's run was reported (its TOOL_RESULT) after the decision. */
  ranReported(all: SessionEvent[]): void;
}

const T = EventType;

/**
 * The `permissions: ask` cases every CLI passes through a real daemon: a
 * client's allow_once, its deny with a reason, allow_session then a
 * session_grant, auto_allow, and the timeout's default.
 */
export function gateCases(cli: GateCli): void {
  const { bridge } = cli;

  /** A session in a repository of its own, so one test's tool run never shows in another. */
  async function startAsking(provider: string) {
    const repo = join(bridge.daemon.repo, '..', randomUUID());
    mkdirSync(repo);
    const s = await sessionClient(bridge.client, bridge.md, {
      projectId: bridge.project,
      repoPath: repo,
    }).start(provider);
    const mark = bridge.daemon.audit.mark();
    await s.send(cli.input);
    const all = await s.events(asked(1));
    const request = requestsOf(all)[0];
    return { s, repo, mark, all, requestId: requestIdOf(request), request: request! };
  }

  const auditFor = (sessionId: string, requestId: string, mark: number) =>
    bridge.daemon.audit.waitFor(
      `the permission decision of ${requestId}`,
      (r) =>
        r.kind === 'permission' &&
        r.session_id === sessionId &&
        (r.detail ?? '').includes(` ${requestId}: `),
      mark,
    );

  it('permissions ask: the request waits with its expiry and default; an allow_once from the client runs the tool', async () => {
    const { s, repo, mark, requestId, request } = await startAsking(cli.providers.ask);
    expect(request.data).toMatchObject({
      ...cli.requested,
      mode: 'ask',
      default: 'deny',
      expires_at: expect.any(String),
    });
    // permission_timeout defaults to 5 minutes.
    expect(Date.parse(String(request.data?.expires_at)) - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(cli.ran(repo)).toBe(false);
    const seq = await respondPermission(
      bridge.client,
      bridge.md,
      s.sessionId,
      requestId,
      'allow_once',
    );
    const all = await s.events(turnsDone(1));
    const { resolved } = expectPermission(
      all,
      { request_id: requestId },
      { decision: 'allow_once', decided_by: 'caller', caller: TEST_CALLER },
    );
    expect(resolved.seq).toBe(seq);
    expect(resolved.data?.reason).toBeUndefined();
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.done).toBe(true);
    expect(cli.ran(repo)).toBe(true);
    cli.ranReported(all);
    const [record] = await auditFor(s.sessionId, requestId, mark);
    expect(record).toMatchObject({
      outcome: 'allow',
      reason: 'permission_allow',
      project_id: bridge.project,
      sub: 'tester',
      iss: 'control',
      cert_identity: 'control-plane',
    });
    expect(record?.detail).toContain('allow_once by caller');
    await s.stop();
  });

  it('permissions ask: a deny with a reason: the tool does not run and the agent is told', async () => {
    const { s, repo, mark, requestId } = await startAsking(cli.providers.ask);
    const reason = 'not in the release freeze';
    await respondPermission(bridge.client, bridge.md, s.sessionId, requestId, 'deny', reason);
    const all = await s.events(turnsDone(1));
    expectPermission(
      all,
      { request_id: requestId },
      { decision: 'deny', decided_by: 'caller', reason, caller: TEST_CALLER },
    );
    expect(cli.ran(repo)).toBe(false);
    cli.refused(all, `denied by the bridge client: ${reason}`, s.sessionId);
    const [record] = await auditFor(s.sessionId, requestId, mark);
    expect(record).toMatchObject({ outcome: 'deny', reason: 'permission_deny', sub: 'tester' });
    expect(record?.detail).toContain(`deny by caller (${reason})`);
    await s.stop();
  });

  it('permissions ask: allow_session answers the next request of the same tool by session_grant, without asking', async () => {
    const { s, repo, requestId } = await startAsking(cli.providers.ask);
    await respondPermission(bridge.client, bridge.md, s.sessionId, requestId, 'allow_session');
    await s.events(turnsDone(1));
    expect(cli.ran(repo)).toBe(true);
    await s.send(cli.input);
    // Nobody answers the second request: the grant does.
    const all = await s.events(turnsDone(2));
    expectPermission(
      all,
      { request_id: requestId },
      { decision: 'allow_session', decided_by: 'caller' },
    );
    const second = expectPermission(
      all,
      cli.requested,
      { decision: 'allow_once', decided_by: 'session_grant' },
      1,
    );
    // It never waited: no expiry, no default.
    expect(second.requested.data?.expires_at).toBeUndefined();
    expect(second.requested.data?.default).toBeUndefined();
    expect(second.requested.turnId).not.toBe(ofType(all, T.EVENT_TYPE_TURN_STARTED)[0]?.turnId);
    expect(requestsOf(all)).toHaveLength(2);
    expectEveryRequestResolved(all);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED).map((e) => e.data?.status)).not.toContain(
      'interrupted',
    );
    await s.stop();
  });

  it('auto_allow: the tool is allowed without asking, decided_by auto_allow', async () => {
    const { s, repo, mark, requestId, request } = await startAsking(cli.providers.auto);
    expect(request.data).toMatchObject({ ...cli.requested, mode: 'ask' });
    expect(request.data?.expires_at).toBeUndefined();
    const all = await s.events(turnsDone(1));
    expectPermission(all, cli.requested, { decision: 'allow_once', decided_by: 'auto_allow' });
    expect(cli.ran(repo)).toBe(true);
    cli.ranReported(all);
    const [record] = await auditFor(s.sessionId, requestId, mark);
    // No caller decided: the audit names who started the session.
    expect(record).toMatchObject({ outcome: 'allow', reason: 'permission_allow', sub: 'tester' });
    expect(record?.detail).toContain('allow_once by auto_allow');
    await s.stop();
  });

  it('permission_timeout 1s: nobody answers, permission_default (deny) applies, decided_by timeout', async () => {
    const started = Date.now();
    const { s, repo, mark, requestId, request } = await startAsking(cli.providers.timeout);
    const expires = Date.parse(String(request.data?.expires_at));
    expect(expires).toBeGreaterThan(started);
    expect(expires).toBeLessThan(Date.now() + 1500);
    expect(request.data?.default).toBe('deny');
    const all = await s.events(turnsDone(1));
    const { resolved } = expectPermission(all, cli.requested, {
      decision: 'deny',
      decided_by: 'timeout',
    });
    expect(resolved.data?.caller).toBeUndefined();
    expect(Date.now()).toBeGreaterThanOrEqual(expires);
    expect(cli.ran(repo)).toBe(false);
    cli.refused(all, 'denied by the bridge (timeout)', s.sessionId);
    const [record] = await auditFor(s.sessionId, requestId, mark);
    expect(record).toMatchObject({ outcome: 'deny', reason: 'permission_deny' });
    expect(record?.detail).toContain('deny by timeout');
    await s.stop();
  });
}
